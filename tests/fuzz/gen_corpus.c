/*
 * gen_corpus.c - writes the valid seed inputs of tests/fuzz/corpus/ with the
 * real encoders (amudp_wire_encode, amudp_frag_send's layout,
 * amtcp_wire_frame_encode, amtcp_shake_make, spawn_frame_put and the payload
 * encoders, spawn_ticket_format, boot_kvs's put_blob), in the input format of
 * each harness (amtcp's in gen_corpus_amtcp.c). The malformed seeds and the regression inputs beside them
 * are kept as they are. Run by tests/fuzz/run.sh --gen-corpus.
 */
#include "amudp_engine.h"
#include "boot_internal.h"
#include "spawn.h"
#include "spawn_proto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gasneti_bytes.h"
#include "gasnett_internal.h"
#include "ptli_wire.h"

void gasnett__envreport(const char *name, const char *value, const char *dflt) {
  (void)name; (void)value; (void)dflt;
}
int boot_err(const char *name, int rc, const char *fmt, ...) {
  (void)name; (void)fmt;
  return rc;
}
void boot_abort(int code, const char *why) { (void)code; (void)why; abort(); }

static const char *top;
void gen_amtcp(void); /* gen_corpus_amtcp.c: its struct gasnetc_transport is another */

void put_file(const char *harness, const char *name, const void *p, size_t len);
void put_file(const char *harness, const char *name, const void *p, size_t len) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s/%s", top, harness, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, len, f) != len || fclose(f)) { perror(path); exit(1); }
}

/* ---- amudp: records u8 flags, u16 len, datagram (see fuzz_amudp_datagram.c) */
static void udp_rec(spawn_buf_t *b, unsigned flags, const amudp_wire_hdr_t *h,
                    const amudp_wire_keys_t *k, const void *body, size_t blen) {
  unsigned char dg[AMUDP_HDR_LEN], pre[3];
  amudp_wire_encode(dg, h, k);
  pre[0] = (unsigned char)flags;
  gasneti_put_le16(pre + 1, (uint16_t)(sizeof dg + blen));
  spawn_buf_put(b, pre, 3);
  spawn_buf_put(b, dg, sizeof dg);
  spawn_buf_put(b, body, blen);
}

static void gen_amudp(void) {
  amudp_wire_keys_t k;
  unsigned char key[GASNETC_KEY_LEN];
  memset(key, 0x5a, sizeof key); /* the harness's job key */
  amudp_wire_keys_init(&k, key, sizeof key);
  unsigned char body[8 + 600];
  memcpy(body, "SHDR0001", 8);
  for (size_t i = 8; i < sizeof body; i++) body[i] = (unsigned char)i;
  /* byte 0 = 2: first sequence number 2 both ways */
  amudp_wire_hdr_t h = {.type = AMUDP_T_DATA, .src = 1, .dst = 0, .seq = 2, .ack = 2,
                        .hdrlen = 8, .msg_id = 0, .frag_off = 0, .msg_len = 100};
  spawn_buf_t b = {0};
  /* a whole frame, then a duplicate of it, an ack (of 2 and 3, and 5
   * selectively), a ping */
  spawn_buf_put(&b, "\x02", 1);
  udp_rec(&b, 0, &h, &k, body, 8 + 100);
  udp_rec(&b, 0, &h, &k, body, 8 + 100);
  amudp_wire_hdr_t a = {.type = AMUDP_T_ACK, .src = 1, .dst = 0, .ack = 4, .sack = 1};
  udp_rec(&b, 0, &a, &k, NULL, 0);
  a.type = AMUDP_T_PING;
  a.src = 2;
  udp_rec(&b, 2, &a, &k, NULL, 0); /* from rank 2's address */
  put_file("amudp_datagram", "seed-data-ack-ping", b.p, b.len);
  b.len = 0;
  /* a notice, and the same again (a duplicate: notices have no sequence) */
  spawn_buf_put(&b, "\x02", 1);
  amudp_wire_hdr_t nt = {.type = AMUDP_T_NOTE, .src = 1, .dst = 0, .ack = 2};
  uint32_t words[AMUDP_NOTE_WORDS] = {0, 17, 2, 1, 42};
  amudp_wire_note_put(&nt, 1, words);
  udp_rec(&b, 0, &nt, &k, NULL, 0);
  udp_rec(&b, 0, &nt, &k, NULL, 0);
  put_file("amudp_datagram", "seed-notice", b.p, b.len);
  b.len = 0;
  /* a frame of 3 fragments, out of order, placed (core header 'L'), then BYE */
  spawn_buf_put(&b, "\x02", 1);
  memcpy(body, "LHDR0002", 8);
  amudp_wire_hdr_t f = {.type = AMUDP_T_DATA, .src = 2, .dst = 0, .hdrlen = 8, .msg_id = 7,
                        .msg_len = 1500};
  uint32_t offs[3] = {1000, 0, 500}, seqs[3] = {4, 2, 3}; /* out of order */
  for (int i = 0; i < 3; i++) {
    f.seq = seqs[i];
    f.frag_off = offs[i];
    udp_rec(&b, 2, &f, &k, body, 8 + 500);
  }
  amudp_wire_hdr_t bye = {.type = AMUDP_T_BYE, .src = 2, .dst = 0, .ack = 2};
  udp_rec(&b, 2, &bye, &k, NULL, 0);
  put_file("amudp_datagram", "seed-fragments-bye", b.p, b.len);
  spawn_buf_free(&b);
}

/* ---- launcher protocol ---- */
static void gen_spawn(void) {
  spawn_buf_t b = {0}, p = {0};
  uint8_t nonce[SPAWN_NONCE_LEN], mac[SPAWN_MAC_LEN], hello[SPAWN_HELLO_LEN], auth[SPAWN_AUTH_MAX];
  memset(nonce, 0x11, sizeof nonce);
  memset(mac, 0x22, sizeof mac);
  spawn_hello_encode(hello, nonce);
  spawn_frame_put(&b, SPAWN_HELLO, 0, 0, hello, sizeof hello);
  size_t al = spawn_auth_encode(auth, SPAWN_KIND_RANK, 3, nonce, mac, "node7");
  spawn_frame_put(&b, SPAWN_AUTH, 0, 0, auth, al);
  /* a rank's WELCOME: mac, rank, size, environment */
  spawn_buf_put(&p, mac, sizeof mac);
  spawn_buf_u32(&p, 3);
  spawn_buf_u32(&p, 4);
  char *env[] = {"PATH=/usr/bin", "GASNET_UDP_MTU=1472"};
  spawn_env_put(&p, env, 2);
  spawn_frame_put(&b, SPAWN_WELCOME, 0, 0, p.p, p.len);
  put_file("spawn_frame", "seed-rank-handshake", b.p, b.len);
  b.len = p.len = 0;
  /* a relay's WELCOME: its job description */
  spawn_cfg_t c;
  memset(&c, 0, sizeof c);
  spawn_host_t hosts[2] = {{.name = "a", .lo = 0, .n = 2}, {.name = "b", .lo = 2, .n = 2}};
  char *argv[] = {"./prog", "arg"}, *exports[] = {"FOO"};
  c.size = 4; c.lo = 0; c.n = 2; c.sub_lo = 0; c.sub_n = 4; c.degree = 2; c.self_host = 1;
  c.connect_ms = 5000; c.nhosts = 2; c.hosts = hosts; c.cwd = "/tmp"; c.relay_path = "gasnetrun";
  c.argc = 2; c.argv = argv; c.nexports = 1; c.exports = exports; c.nenv = 2; c.env = env;
  spawn_buf_put(&p, mac, sizeof mac);
  spawn_cfg_put(&p, &c);
  spawn_frame_put(&b, SPAWN_WELCOME, 0, 0, p.p, p.len);
  put_file("spawn_frame", "seed-relay-welcome", b.p, b.len);
  b.len = p.len = 0;
  /* collectives (one compressed), exit, output, abort */
  uint8_t data[6000];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i % 7);
  spawn_coll_encode(&p, 0, 1, data, 16);
  spawn_frame_put(&b, SPAWN_COLL, SPAWN_OP_EXCHANGE, 16, p.p, p.len);
  spawn_frame_put(&b, SPAWN_COLL_RESULT, SPAWN_OP_BCAST, sizeof data, data, sizeof data);
  uint8_t ex[SPAWN_EXIT_LEN];
  spawn_exit_encode(ex, &(spawn_exit_t){SPAWN_HOW_SIGNALED, 9, SPAWN_EXIT_CONNECTED});
  spawn_frame_put(&b, SPAWN_EXIT, 2, 0, ex, sizeof ex);
  spawn_frame_put(&b, SPAWN_OUTPUT, 2, 1, "hello\n", 6);
  spawn_frame_put(&b, SPAWN_ABORT, 1, 2, "bad thing", 9);
  put_file("spawn_frame", "seed-coll-exit-output", b.p, b.len);
  spawn_buf_free(&b);
  spawn_buf_free(&p);

  spawn_ticket_t t;
  memset(&t, 0, sizeof t);
  for (int i = 0; i < SPAWN_SECRET_LEN; i++) t.secret[i] = (uint8_t)(i * 37);
  snprintf(t.addr, sizeof t.addr, "127.0.0.1");
  t.port = 40123; t.kind = SPAWN_KIND_RELAY; t.id = SPAWN_ID_ANY;
  char line[SPAWN_TICKET_MAX];
  spawn_ticket_format(&t, line, sizeof line);
  put_file("spawn_ticket", "seed-relay", line, strlen(line));
  snprintf(t.addr, sizeof t.addr, "-");
  t.kind = SPAWN_KIND_RANK; t.id = 5;
  spawn_ticket_format(&t, line, sizeof line);
  put_file("spawn_ticket", "seed-rank-ssh", line, strlen(line));
}

/* ---- boot_kvs: what rank 0 puts, as rank 1 gets it back ---- */
static spawn_buf_t kvs_out;
static int g_init(uint32_t *rank, uint32_t *size) { *rank = 0; *size = 2; return 0; }
static int g_put(const char *key, const char *val) {
  (void)key;
  spawn_buf_put(&kvs_out, val, strlen(val));
  spawn_buf_put(&kvs_out, "\n", 1);
  return 0;
}
static int g_fence(void) { return 0; }
static int g_get(uint32_t rank, const char *key, char *val, size_t cap) {
  (void)rank; (void)key; (void)val; (void)cap;
  return -EPROTO; /* rank 1's blob: not needed, rank 0's is in already */
}
static void g_abort(int code, const char *why) { (void)code; (void)why; }
static void g_fini(void) {}

static void gen_kvs(void) {
  static const size_t bcast_len[4] = {0, 7, 100, 5000};
  boot_kvs_t g = {.name = "gen", .init = g_init, .put = g_put, .fence = g_fence, .get = g_get,
                  .abort = g_abort, .fini = g_fini};
  for (int sel = 1; sel < 4; sel += 2) {
    uint8_t hdr[2] = {(uint8_t)(sel == 1 ? 0 : 200), (uint8_t)sel}, key[BOOT_JOB_KEY_LEN];
    g.max_key = 64;
    g.max_val = 64 + hdr[0];
    kvs_out.len = 0;
    spawn_buf_put(&kvs_out, hdr, 2);
    boot_kvs_use(&g);
    uint32_t r, n;
    boot_kvs_ops.init(&r, &n, key);
    uint8_t *buf = calloc(1, bcast_len[sel] + 1);
    for (size_t i = 0; i < bcast_len[sel]; i++) buf[i] = (uint8_t)(i % 13 == 0 ? i : 0);
    boot_kvs_ops.broadcast(buf, bcast_len[sel], 0);
    uint8_t mine[12] = "rank 0 blob", all[24];
    boot_kvs_ops.exchange(mine, sizeof mine, all);
    boot_kvs_ops.fini(0);
    free(buf);
    put_file("boot_kvs", sel == 1 ? "seed-small" : "seed-zlib-chunks", kvs_out.p, kvs_out.len);
  }
  spawn_buf_free(&kvs_out);
}

/* ---- Portals: u32 payload length (LE), then the header (fuzz_ptli_wire.c) */
static void ptli_rec(const char *name, const ptli_msg_t *m, uint32_t paylen) {
  uint8_t b[4 + PTLI_WIRE_LEN];
  gasneti_put_le32(b, paylen);
  ptli_wire_encode(m, b + 4);
  put_file("ptli_wire", name, b, sizeof b);
}

static void gen_ptli(void) {
  ptli_msg_t m = {.op = PTLI_OP_PUT, .flags = PTLI_WF_ACK, .portal = 4, .cookie = 0, .tnid = 1,
                  .tpid = 3, .seq = 17, .bits = 0x80000000000001a2ull, .offset = 0,
                  .md = 0x3000010000000007ull, .rlength = 4096, .hdr_data = 4096ull << 24 | 5};
  ptli_rec("seed-put-ack", &m, 4096);
  m.flags = 0;
  m.rlength = 0;
  ptli_rec("seed-put-empty", &m, 0);
  ptli_msg_t a = {.op = PTLI_OP_ACK, .portal = 4, .tnid = 0, .tpid = 0, .bits = 0x1a2, .offset = 64,
                  .md = 0x3000010000000007ull, .rlength = 4096, .mlength = 1000};
  ptli_rec("seed-ack", &a, 0);
  ptli_msg_t g = {.op = PTLI_OP_GET, .portal = 5, .cookie = 2, .tnid = 2, .tpid = 0, .seq = 9,
                  .bits = 77, .offset = 1000, .md = 0x3000020000000009ull, .rlength = 500};
  ptli_rec("seed-get", &g, 0);
  ptli_msg_t r = g;
  r.op = PTLI_OP_REPLY;
  r.cookie = r.seq = 0;
  r.mlength = 400;
  ptli_rec("seed-reply", &r, 400);
  m.flags = PTLI_WF_CONT; /* the second frame of a 10000-byte put */
  m.rlength = 10000;
  m.offset = 4096;
  ptli_rec("seed-put-cont", &m, 4096);
  r.seq = 9; /* the second part of a 10000-byte reply */
  r.rlength = r.mlength = 10000;
  r.hdr_data = 4096;
  ptli_rec("seed-reply-part", &r, 4096);
}

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: gen_corpus CORPUS_DIR\n"); return 2; }
  top = argv[1];
  gen_amudp();
  gen_amtcp();
  gen_spawn();
  gen_kvs();
  gen_ptli();
  return 0;
}
