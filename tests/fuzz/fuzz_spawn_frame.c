/*
 * fuzz_spawn_frame.c - libFuzzer harness for the launcher protocol
 * (spawnproto/spawn_proto.c, spawner/spawn_cfg.c): a connection's bytes cut into
 * frames as spawn_recv_frame and the launcher's conn_frames do
 * (spawn_hdr_decode, spawn_frame_payload with its zlib inflate), then each
 * payload through every decoder that may meet it: HELLO, AUTH, WELCOME (a
 * rank's body: spawn_welcome_rank_decode; a relay's: spawn_cfg_get), COLL,
 * EXIT. A decoder that fails must leave nothing allocated.
 *
 * Input: the byte stream of frames.
 */
#include "spawn.h"
#include "spawn_proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void payload_decoders(const spawn_hdr_t *h, const uint8_t *p, size_t len) {
  const uint8_t *nonce;
  spawn_auth_t a;
  spawn_coll_part_t cp;
  spawn_exit_t e;
  volatile size_t sink = 0;
  switch (h->type) {
  case SPAWN_HELLO:
    if (spawn_hello_decode(p, len, &nonce) == 0) sink += nonce[SPAWN_NONCE_LEN - 1];
    break;
  case SPAWN_AUTH:
    if (spawn_auth_decode(p, len, &a) == 0)
      sink += a.cnonce[SPAWN_NONCE_LEN - 1] + a.mac[SPAWN_MAC_LEN - 1] + strlen(a.host);
    break;
  case SPAWN_WELCOME: {
    if (len < SPAWN_MAC_LEN) break;
    const uint8_t *body = p + SPAWN_MAC_LEN;
    size_t blen = len - SPAWN_MAC_LEN;
    uint32_t rank, size, n;
    char **env;
    if (spawn_welcome_rank_decode(body, blen, &rank, &size, &env, &n) == 0) {
      for (uint32_t i = 0; i < n; i++) { sink += strlen(env[i]); free(env[i]); }
      if (env[n]) __builtin_trap(); /* NULL-terminated */
      free(env);
    }
    spawn_cfg_t cfg;
    spawn_rd_t r = { body, body + blen, 0 };
    if (spawn_cfg_get(&r, &cfg) == 0) {
      for (uint32_t i = 0; i < cfg.nhosts; i++) sink += strlen(cfg.hosts[i].name);
      for (uint32_t i = 0; i < cfg.argc; i++) sink += strlen(cfg.argv[i]);
      spawn_cfg_free(&cfg);
    }
    break;
  }
  case SPAWN_COLL:
    if (spawn_coll_decode(p, len, &cp) == 0 && cp.dlen) sink += cp.data[cp.dlen - 1];
    break;
  case SPAWN_EXIT:
    if (spawn_exit_decode(p, len, &e) == 0) sink += e.value;
    break;
  default:
    break;
  }
  (void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  while (size >= SPAWN_HDR_LEN) {
    spawn_hdr_t h;
    if (spawn_hdr_decode(data, &h) < 0) return 0;   /* the connection is closed */
    (void)spawn_type_name(h.type);
    data += SPAWN_HDR_LEN, size -= SPAWN_HDR_LEN;
    if (h.len > size) return 0;                     /* ends mid-frame */
    uint8_t *wire = malloc(h.len ? h.len : 1);      /* exactly the payload: ASan sees overreads */
    memcpy(wire, data, h.len);
    const uint8_t *raw;
    size_t rawlen;
    uint8_t *owned;
    int rc = spawn_frame_payload(&h, wire, &raw, &rawlen, &owned);
    if (rc == 0) {
      payload_decoders(&h, raw, rawlen);
      free(owned);
    }
    free(wire);
    if (rc < 0) return 0;
    data += h.len, size -= h.len;
  }
  return 0;
}
