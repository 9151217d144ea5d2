/*
 * fuzz_amudp_datagram.c - libFuzzer harness for what amudp does with a
 * received datagram: amudp_rx_datagram (amudp_wire_decode, then acks, the
 * sequence window, duplicate suppression) and amudp_frag_deliver
 * (reassembly; amudp_item_deliver, which also splits aggregates and hands
 * notices over), the production functions, on the protocol engine of rank 0
 * of 3 (amudp_engine.h), linked alone: its port here encodes nothing but
 * checks the datagrams it emits and drops them.
 * Before the datagrams arrive it has sent frames of its own to ranks 1 and
 * 2, so the acks in the input meet a real in-flight list.
 *
 * Input: byte 0 picks the first sequence number (wraparound), then records
 *   u8 flags, u16 len (LE), len bytes of datagram
 * flags bit 0: sign it (write the job's tag and the header MAC, so the
 * fuzzer gets past the MAC check); bits 1-2: source address (0 rank 1,
 * 1 rank 2, 2 a stranger, 3 rank 0 itself); bit 3: truncated by the kernel.
 */
#include "amudp_engine.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "gasneti_bytes.h"

#define NRANKS 3
#define PLACE_BUF (AMUDP_MAX_PAYLOAD + 64)

static unsigned char *place_buf;
static uint64_t delivered_sum;

static void on_deliver(void *ctx, uint32_t src, const void *hdr, size_t hdrlen, void *payload,
                       size_t paylen) {
  (void)ctx;
  const unsigned char *h = hdr, *p = payload;
  /* touch every byte: ASan checks that hdr and payload are what they claim */
  for (size_t i = 0; i < hdrlen; i++) delivered_sum += h[i];
  for (size_t i = 0; i < paylen; i++) delivered_sum += p[i];
  delivered_sum += src;
}

static void on_notice(void *ctx, uint32_t src, const gasnetc_notice_t *n) {
  (void)ctx;
  for (int i = 0; i < GASNETC_NOTICE_WORDS; i++) delivered_sum += n->w[i];
  delivered_sum += n->kind + src;
}

/* The port: what the engine emits must be a datagram of its own making
 * (one it could decode); it goes nowhere. */
static uint64_t emitted_sum;
static void port_emit(void *ctx, amudp_peer_t *p, const struct iovec *iov, int iovcnt) {
  (void)ctx;
  size_t len = 0;
  for (int i = 0; i < iovcnt; i++) {
    const unsigned char *b = iov[i].iov_base;
    for (size_t k = 0; k < iov[i].iov_len; k++) emitted_sum += b[k]; /* ASan: all readable */
    len += iov[i].iov_len;
  }
  if (len < AMUDP_HDR_LEN || p->rank == 0) abort();
}
static void port_batch(void *ctx) { (void)ctx; }
static const amudp_port_ops_t port_ops = {
  .emit = port_emit, .batch_begin = port_batch, .batch_end = port_batch,
};

/* A Long's destination for frames whose core header starts with 'L'. */
static void *on_place(void *ctx, uint32_t src, const void *hdr, size_t hdrlen, size_t paylen) {
  (void)ctx; (void)src;
  if (hdrlen && *(const unsigned char *)hdr == 'L' && paylen <= AMUDP_MAX_PAYLOAD)
    return place_buf + 16;
  return NULL;
}

static void addr_of(struct sockaddr_storage *ss, unsigned port) {
  struct sockaddr_in *s = (struct sockaddr_in *)ss;
  memset(ss, 0, sizeof *ss);
  s->sin_family = AF_INET;
  s->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  s->sin_port = htons((uint16_t)port);
}

/* The engine amudp_open + amudp_connect would make. */
static amudp_engine_t *fuzz_open(uint32_t isn, uint64_t now) {
  amudp_engine_t *t = calloc(1, sizeof *t);
  t->out = &port_ops;
  t->cfg.myrank = 0;
  t->cfg.nranks = NRANKS;
  memset(t->cfg.job_key, 0x5a, GASNETC_KEY_LEN);
  t->cfg.deliver = on_deliver;
  t->cfg.place = on_place;
  t->cfg.notice = on_notice;
  t->next_deadline_ns = UINT64_MAX;
  amudp_wire_keys_init(&t->keys, t->cfg.job_key, GASNETC_KEY_LEN);
  t->keys.myrank = 0;
  t->keys.nranks = NRANKS;
  t->keys.max_hdr = GASNETC_HDR_MAX;
  t->keys.max_payload = AMUDP_MAX_PAYLOAD;
  amudp_tun_t *u = &t->tun; /* the documented defaults */
  u->timeout_ns = 30000000000ULL;
  u->ping_ns = u->timeout_ns / (AMUDP_PROBES + 1);
  u->window = 64;
  u->credits = 48;
  u->ack_every = 16;
  u->isn = isn;
  u->window_bytes = AMUDP_WINDOW_BYTES_MIN;
  u->rto_min_ns = 50000;
  u->rto_init_ns = 5000000;
  u->rto_max_ns = 1000000000;
  u->ack_delay_ns = 50000;
  t->peers = calloc(NRANKS, sizeof *t->peers);
  for (uint32_t r = 0; r < NRANKS; r++) {
    amudp_peer_t *p = &t->peers[r];
    p->rank = r;
    p->sfd = -1;
    if (r == 0) { p->gone = 1; continue; }
    addr_of(&p->addr, 20000 + r);
    p->addrlen = sizeof(struct sockaddr_in);
    p->mtu = AMUDP_MTU_ETHERNET;
    amudp_rel_peer_init(t, p, now);
  }
  return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static unsigned char *rx;
  if (!rx) {
    rx = malloc(AMUDP_RXBUF);
    place_buf = malloc(PLACE_BUF);
  }
  if (size < 1) return 0;
  uint64_t now = 1000000000ULL;
  /* isn near the wrap point half the time */
  uint32_t isn = data[0] & 1 ? 0xffffffffu - (data[0] >> 1) : data[0];
  amudp_engine_t *t = fuzz_open(isn, now);
  data++, size--;

  /* Frames of our own in flight: small, inline, and fragmented. */
  static unsigned char payload[4000];
  unsigned char hdr[8] = {'S', 1, 2, 3, 4, 5, 6, 7};
  for (uint32_t r = 1; r < NRANKS; r++) {
    amudp_frag_send(t, &t->peers[r], hdr, sizeof hdr, payload, 10, NULL, 0, now);
    amudp_frag_send(t, &t->peers[r], hdr, sizeof hdr, payload, sizeof payload, NULL, 1, now);
  }

  while (size >= 3) {
    unsigned flags = data[0];
    size_t len = gasneti_get_le16(data + 1);
    data += 3, size -= 3;
    if (len > size) len = size;
    if (len > AMUDP_RXBUF) len = AMUDP_RXBUF;
    memcpy(rx, data, len);
    data += len, size -= len;
    if ((flags & 1) && len >= AMUDP_HDR_LEN) {
      gasneti_put_le64(rx + 4, t->keys.tag);
      gasneti_put_le64(rx + 56, amudp_siphash(t->keys.mac_k0, t->keys.mac_k1, rx, 56));
    }
    struct sockaddr_storage from;
    unsigned who = (flags >> 1) & 3;
    addr_of(&from, who == 2 ? 30000 : 20000 + (who == 3 ? 0 : who + 1));
    now += 1000;
    amudp_rxitem_t it;
    /* Shrink the buffer to the datagram so ASan sees any read past its end. */
    unsigned char *dg = malloc(len ? len : 1);
    memcpy(dg, rx, len);
    int r = amudp_rx_datagram(t, dg, len, (flags & 8) != 0, &from, 0, now, &it);
    if (r > 0) amudp_item_deliver(t, it.h.src, &it);
    free(dg);
    amudp_rel_timers(t, now);
  }
  /* amudp_close without the flush (nobody will ack): frees every packet,
   * reassembly and cache. */
  amudp_engine_fini(t);
  free(t->peers);
  free(t);
  return 0;
}
