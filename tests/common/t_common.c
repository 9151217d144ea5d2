/*
 * t_common.c - common/'s helpers against their definitions: SHA-256 (FIPS
 * 180-4 examples) and HMAC-SHA256 (RFC 4231 test cases 1, 2 and 6), the
 * byte order of every put/get, the monotonic clock, and the number and size
 * grammar of gasneti_env.h, and the direct system calls of gasneti_sys.h
 * (t_sys.c, with and without GASNETI_SYS_LIBC). Prints each value it compares; the last line is
 * "t_common: N checks, M failures".
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gasneti_bytes.h"
#include "gasneti_env.h"
#include "gasneti_sha256.h"
#include "gasneti_time.h"

static int checks, failures;

/* t_sys.c, compiled twice */
void t_sys_direct(void (*check)(int, const char *), const char *impl);
void t_sys_libc(void (*check)(int, const char *), const char *impl);
extern const int t_sys_is_direct;

static void check(int ok, const char *what) {
  checks++;
  if (!ok) failures++;
  printf("%s %s\n", ok ? "ok  " : "FAIL", what);
}

static void hex(const uint8_t *p, size_t n, char *out) {
  for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", p[i]);
}

static void sha256_case(const char *msg, const char *want) {
  uint8_t d[GASNETI_SHA256_LEN];
  char got[2 * GASNETI_SHA256_LEN + 1], what[256];
  gasneti_sha256_t c;
  gasneti_sha256_init(&c);
  for (const char *p = msg; *p; p++) gasneti_sha256_update(&c, p, 1); /* bytewise: buffering */
  gasneti_sha256_final(&c, d);
  hex(d, sizeof d, got);
  snprintf(what, sizeof what, "sha256(\"%.20s%s\") = %.16s..., want %.16s...", msg,
           strlen(msg) > 20 ? "..." : "", got, want);
  check(!strcmp(got, want), what);
}

/* HMAC over the data split in two pieces (the pieces are concatenated). */
static void hmac_case(const char *name, const uint8_t *key, size_t keylen, const char *data,
                      const char *want) {
  uint8_t d[GASNETI_SHA256_LEN];
  char got[2 * GASNETI_SHA256_LEN + 1], what[256];
  size_t n = strlen(data);
  const void *piece[2] = {data, data + n / 3};
  size_t len[2] = {n / 3, n - n / 3};
  gasneti_hmac_sha256(key, keylen, 2, piece, len, d);
  hex(d, sizeof d, got);
  snprintf(what, sizeof what, "hmac_sha256 %s = %.16s..., want %.16s...", name, got, want);
  check(!strcmp(got, want), what);
}

static void bytes_case(const char *name, const uint8_t *got, const uint8_t *want, size_t n,
                       int roundtrip) {
  char g[17], w[17], what[128];
  hex(got, n, g);
  hex(want, n, w);
  snprintf(what, sizeof what, "%s writes %s, want %s; reads it back: %s", name, g, w,
           roundtrip ? "yes" : "NO");
  check(!memcmp(got, want, n) && roundtrip, what);
}

static void num_case(const char *s, double lo, double hi, int want_rc, double want) {
  double v = -1;
  char what[160];
  int rc = gasneti_parse_num(s, lo, hi, &v);
  snprintf(what, sizeof what, "parse_num(\"%s\", [%g, %g]) = %d, %g; want %d, %g", s, lo, hi, rc,
           rc ? NAN : v, want_rc, want_rc ? NAN : want);
  check(rc == want_rc && (rc || v == want), what);
}

static void uint_case(const char *s, uint64_t lo, uint64_t hi, int want_rc, uint64_t want) {
  uint64_t v = 7;
  char what[160];
  int rc = gasneti_parse_uint(s, lo, hi, &v);
  snprintf(what, sizeof what, "parse_uint(\"%s\", [%llu, %llu]) = %d, %llu; want %d, %llu",
           s ? s : "(null)", (unsigned long long)lo, (unsigned long long)hi, rc,
           (unsigned long long)(rc ? 0 : v), want_rc, (unsigned long long)want);
  check(rc == want_rc && (rc || v == want), what);
}

static void size_case(const char *s, int want_rc, double want_num, uint64_t want_unit) {
  double num = -1;
  uint64_t unit = 7;
  char what[160];
  int rc = gasneti_parse_size(s, &num, &unit);
  snprintf(what, sizeof what, "parse_size(\"%s\") = %d, %g x %llu; want %d, %g x %llu", s, rc,
           rc ? 0 : num, (unsigned long long)(rc ? 0 : unit), want_rc, want_num,
           (unsigned long long)want_unit);
  check(rc == want_rc && (rc || (num == want_num && unit == want_unit)), what);
}

static void bytes_parse_case(const char *s, int want_rc, uint64_t want) {
  uint64_t v = 7;
  char what[160];
  int rc = gasneti_parse_bytes(s, &v);
  snprintf(what, sizeof what, "parse_bytes(\"%s\") = %d, %llu; want %d, %llu", s, rc,
           (unsigned long long)(rc ? 0 : v), want_rc, (unsigned long long)want);
  check(rc == want_rc && (rc || v == want), what);
}

int main(void) {
  /* ---- SHA-256: FIPS 180-4 examples (one block, two blocks, empty) ---- */
  sha256_case("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  sha256_case("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  sha256_case("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");

  /* ---- HMAC-SHA256: RFC 4231 cases 1, 2 and 6 (a key longer than a block) ---- */
  uint8_t k1[20], k6[131];
  memset(k1, 0x0b, sizeof k1);
  memset(k6, 0xaa, sizeof k6);
  hmac_case("RFC 4231 case 1", k1, sizeof k1, "Hi There",
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  hmac_case("RFC 4231 case 2", (const uint8_t *)"Jefe", 4, "what do ya want for nothing?",
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  hmac_case("RFC 4231 case 6", k6, sizeof k6,
            "Test Using Larger Than Block-Size Key - Hash Key First",
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  check(gasneti_memneq("abcd", "abcd", 4) == 0 && gasneti_memneq("abcd", "abce", 4) != 0,
        "memneq(\"abcd\", \"abcd\") == 0, memneq(\"abcd\", \"abce\") != 0");

  /* ---- byte order ---- */
  uint8_t b[8];
  gasneti_put_le16(b, 0x0102);
  bytes_case("put_le16(0x0102)", b, (const uint8_t[]){0x02, 0x01}, 2, gasneti_get_le16(b) == 0x0102);
  gasneti_put_le32(b, 0x01020304);
  bytes_case("put_le32(0x01020304)", b, (const uint8_t[]){4, 3, 2, 1}, 4,
             gasneti_get_le32(b) == 0x01020304);
  gasneti_put_le64(b, 0x0102030405060708ull);
  bytes_case("put_le64(0x0102030405060708)", b, (const uint8_t[]){8, 7, 6, 5, 4, 3, 2, 1}, 8,
             gasneti_get_le64(b) == 0x0102030405060708ull);
  gasneti_put_be16(b, 0x0102);
  bytes_case("put_be16(0x0102)", b, (const uint8_t[]){0x01, 0x02}, 2, gasneti_get_be16(b) == 0x0102);
  gasneti_put_be32(b, 0x01020304);
  bytes_case("put_be32(0x01020304)", b, (const uint8_t[]){1, 2, 3, 4}, 4,
             gasneti_get_be32(b) == 0x01020304);
  gasneti_put_be64(b, 0x0102030405060708ull);
  bytes_case("put_be64(0x0102030405060708)", b, (const uint8_t[]){1, 2, 3, 4, 5, 6, 7, 8}, 8,
             gasneti_get_be64(b) == 0x0102030405060708ull);
  gasneti_put_le32(b, 0xfffffffeu); /* high bits survive the shifts */
  check(gasneti_get_le32(b) == 0xfffffffeu && gasneti_get_be32(b) == 0xfeffffffu,
        "get_le32/get_be32 of fe ff ff ff = 0xfffffffe / 0xfeffffff");

  /* ---- the clock ---- */
  uint64_t t0 = gasneti_now_ns(), prev = t0, back = 0;
  for (int i = 0; i < 100000; i++) {
    uint64_t t = gasneti_now_ns();
    if (t < prev) back++;
    prev = t;
  }
  struct timespec ts = {0, 2000000};
  nanosleep(&ts, NULL);
  uint64_t slept = gasneti_now_ns() - prev, ms = gasneti_now_ms(), ns = gasneti_now_ns();
  char what[160];
  snprintf(what, sizeof what, "now_ns: 100000 readings, %llu went back; a 2 ms sleep took %llu ns",
           (unsigned long long)back, (unsigned long long)slept);
  check(back == 0 && slept >= 2000000 && slept < 2000000000, what);
  snprintf(what, sizeof what, "now_ms %llu within 1 of now_ns / 1e6 (%llu)", (unsigned long long)ms,
           (unsigned long long)(ns / 1000000));
  check(ns / 1000000 - ms <= 1, what);

  /* ---- numbers ---- */
  num_case("30", 0.1, 86400, 0, 30);
  num_case("0.5", 0, 1, 0, 0.5);
  num_case("1e3", 0, 1e6, 0, 1000);
  num_case("1", 0, 0.5, -1, 0);     /* out of range */
  num_case("nan", -1e9, 1e9, -1, 0); /* NaN is in no range */
  num_case("", 0, 1, -1, 0);
  num_case("3x", 0, 10, -1, 0);
  num_case("3 ", 0, 10, -1, 0);
  uint_case("42", 0, 100, 0, 42);
  uint_case(" +7", 0, 100, 0, 7);
  uint_case("4294967295", 0, UINT32_MAX, 0, UINT32_MAX);
  uint_case("4294967296", 0, UINT32_MAX, -1, 0);
  uint_case("0", 1, 10, -1, 0);
  uint_case("-1", 0, UINT64_MAX, -1, 0); /* not wrapped round to 2^64-1 */
  uint_case("99999999999999999999", 0, UINT64_MAX, -1, 0);
  uint_case("12a", 0, 100, -1, 0);
  uint_case("", 0, 100, -1, 0);
  uint_case(NULL, 0, 100, -1, 0);

  /* ---- sizes ---- */
  size_case("4096", 0, 4096, 0);
  size_case("0.25", 0, 0.25, 0);
  size_case("100k", 0, 100, 1u << 10);
  size_case("256MB", 0, 256, 1u << 20);
  size_case("2GiB", 0, 2, 1u << 30);
  size_case("1.5g", 0, 1.5, 1u << 30);
  size_case("4t", 0, 4, 1ull << 40);
  size_case("512B", 0, 512, 1);
  size_case("512iB", -1, 0, 0); /* iB only after a unit */
  size_case("4 M", -1, 0, 0);
  size_case("4MBB", -1, 0, 0);
  size_case("-1M", -1, 0, 0);
  size_case("nan", -1, 0, 0);
  size_case("M", -1, 0, 0);
  bytes_parse_case("4M", 0, 4u << 20);
  bytes_parse_case("100k", 0, 102400);
  bytes_parse_case("1.5k", 0, 1536);
  bytes_parse_case("123", 0, 123);
  bytes_parse_case("17179869184T", -1, 0); /* 2^74 bytes */
  const char *u = "KiB rest";
  uint64_t mul = gasneti_size_unit(&u);
  snprintf(what, sizeof what, "size_unit(\"KiB rest\") = %llu, leaves \"%s\"", (unsigned long long)mul, u);
  check(mul == 1024 && !strcmp(u, " rest"), what);
  u = "xyz";
  mul = gasneti_size_unit(&u);
  check(mul == 0 && !strcmp(u, "xyz"), "size_unit(\"xyz\") = 0, leaves \"xyz\"");

  /* ---- the message path's system calls (gasneti_sys.h) ---- */
  t_sys_direct(check, t_sys_is_direct ? "direct" : "libc (no direct calls here)");
  t_sys_libc(check, "libc");

  printf("t_common: %d checks, %d failures\n", checks, failures);
  return failures != 0;
}
