/*
 * fuzz_amtcp_shake.c - libFuzzer harness for amtcp's connection handshake:
 * a 48-byte HELLO or WELCOME record checked by amtcp_shake_check (the
 * production function: amtcp_wire_shake_decode, ranks, HMAC) as the
 * acceptor (rank 2 of 4: any src below it) and as the connector (expecting
 * rank 3's WELCOME).
 *
 * Input: the record (short inputs are padded with zeros, as a record is
 * only checked once all 48 bytes have arrived).
 */
#include "amtcp_internal.h"

#include <stdlib.h>
#include <string.h>

#include "gasnett_internal.h"

void gasnett__envreport(const char *name, const char *value, const char *dflt) {
  (void)name; (void)value; (void)dflt; /* no tunables read here */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static gasnetc_transport_t *t;
  if (!t) {
    t = calloc(1, sizeof *t);
    t->cfg.myrank = 2;
    t->cfg.nranks = 4;
    memset(t->cfg.job_key, 0x5a, GASNETC_KEY_LEN);
  }
  unsigned char *rec = calloc(1, AMTCP_SHAKE_LEN); /* exactly the record: ASan sees overreads */
  memcpy(rec, data, size < AMTCP_SHAKE_LEN ? size : AMTCP_SHAKE_LEN);
  uint32_t src = 0;
  amtcp_bad_t b = amtcp_shake_check(t, rec, AMTCP_T_HELLO, UINT32_MAX, &src);
  if (b == AMTCP_BAD_NONE && !(src < t->cfg.myrank)) __builtin_trap();
  b = amtcp_shake_check(t, rec, AMTCP_T_WELCOME, 3, &src);
  if (b == AMTCP_BAD_NONE && src != 3) __builtin_trap();
  (void)amtcp_bad_name(b);
  free(rec);
  return 0;
}
