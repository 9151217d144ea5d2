/*
 * t_amudp_forge - datagrams that are not this job's, or not well formed,
 * are dropped and counted, and nothing is delivered.
 *
 * One process opens rank 0 and rank 1 of a 2-rank job, and a plain UDP
 * socket (the attacker, at an address no rank has). The attacker sends rank
 * 0, per class, a known number of datagrams:
 *   short     shorter than the 64-byte header (incl. a valid header cut short)
 *   magic     random bytes, wrong magic
 *   tag       a well-formed header from another job (other key)
 *   mac       this job's tag, header altered after the MAC was computed
 *   rank      valid MAC, src out of range / src = receiver / dst != receiver
 *   type      valid MAC, unknown type
 *   length    valid MAC, payload slice beyond the frame / hdrlen too big /
 *             a control datagram (ACK, NOTE) with a body
 *   addr      valid MAC claiming to be rank 1, but from the attacker's address
 *   version   this job's tag and a valid MAC, but amudp wire version 1 (an
 *             older build: before AMUDP_T_AGG), and 255
 * Then a fresh pair whose rank 1 advertises wire version 2 in its address
 * blob: rank 0's connect refuses it (EPROTO) and says why.
 * and checks rank 0's counters match exactly, deliver() never ran, and a
 * real frame from rank 1 still gets through afterwards.
 */
#include "amudp_tjob.h"
#include "gasneti_bytes.h"
#include "amudp_wire.h"

#include <arpa/inet.h>
#include <netinet/in.h>

static int g_delivered;

static void on_deliver(void *ctx, uint32_t src, const void *hdr, size_t hdrlen,
                       void *payload, size_t paylen) {
  (void)ctx; (void)hdr; (void)hdrlen; (void)payload;
  printf("  delivered: frame from rank %u, %zu payload bytes\n", src, paylen);
  g_delivered++;
}

static const char *tgetenv(const char *n) { return getenv(n); }

static int attacker_fd;
static struct sockaddr_in victim;

static void shoot(const void *buf, size_t len) {
  if (sendto(attacker_fd, buf, len, 0, (struct sockaddr *)&victim, sizeof victim) != (ssize_t)len)
    perror("sendto");
}

/* A DATA header from `src` to `dst` with a 32-byte core header. */
static size_t make_data(unsigned char *buf, const amudp_wire_keys_t *k, uint32_t src,
                        uint32_t dst, uint8_t type, uint32_t msg_len, uint32_t off,
                        size_t paylen, uint16_t hdrlen) {
  amudp_wire_hdr_t h;
  memset(&h, 0, sizeof h);
  h.type = type; h.src = src; h.dst = dst; h.seq = 1; h.ack = 1;
  h.hdrlen = hdrlen; h.msg_id = 7; h.frag_off = off; h.msg_len = msg_len;
  amudp_wire_encode(buf, &h, k);
  memset(buf + AMUDP_HDR_LEN, 0xab, hdrlen + paylen);
  return AMUDP_HDR_LEN + hdrlen + paylen;
}

/* An AGG datagram of `n` records, each a 32-byte core header and `paylen`
 * payload bytes; then `mangle` breaks one thing. Returns its length. */
static size_t make_agg(unsigned char *buf, const amudp_wire_keys_t *k, unsigned n,
                       uint32_t paylen, int mangle) {
  size_t off = AMUDP_HDR_LEN;
  memset(buf, 0, 4096);
  for (unsigned i = 0; i < n; i++) {
    amudp_wire_rec_t r = {paylen, 32, 0, i};
    amudp_wire_rec_encode(buf + off, &r);
    memset(buf + off + AMUDP_REC_LEN, 0xcd, 32 + paylen);
    off += amudp_wire_rec_size(32, paylen);
  }
  amudp_wire_hdr_t h;
  memset(&h, 0, sizeof h);
  h.type = AMUDP_T_AGG; h.src = 1; h.dst = 0; h.seq = 1; h.ack = 1;
  h.msg_id = n; h.msg_len = (uint32_t)(off - AMUDP_HDR_LEN);
  switch (mangle) {
  case 1: h.msg_id = 0; break;                          /* no record */
  case 2: h.msg_id = n + 1; break;                      /* more records than bytes */
  case 3: h.msg_id = AMUDP_AGG_MAX_RECS + 1; break;     /* over the bound */
  case 4: h.msg_len += 16; break;                       /* length is not the datagram's */
  case 5: gasneti_put_le32(buf + AMUDP_HDR_LEN, 4000); break; /* payload past the end */
  case 6: buf[AMUDP_HDR_LEN + 12] = 1; break;           /* reserved bits */
  case 7: gasneti_put_le16(buf + AMUDP_HDR_LEN + 4, 1000); break; /* core header too big */
  case 8: buf[off - 1] = 0xee; break;                   /* padding not zero (paylen % 16 != 0) */
  case 9: gasneti_put_le16(buf + AMUDP_HDR_LEN + 6, 0x80); break; /* unknown record flag */
  }
  amudp_wire_encode(buf, &h, k);
  return off;
}

/* A rank of another build is refused at connect, before any datagram:
 * rank 1's blob says wire version 2 (AMUDP_ADDR_WIRE, byte 22 of the blob:
 * amudp/amudp.c). Rank 0's connect fails with EPROTO, naming rank 1 and
 * both versions on stderr (t-forge.sh reads it). Returns 1 on failure. */
static int version_at_connect(gasnetc_transport_config_t *cfg, const unsigned char *key) {
  gasnetc_transport_t *t[2];
  unsigned char blobs[2 * GASNETC_ADDR_MAX] = {0};
  for (int r = 0; r < 2; r++) {
    memcpy(cfg[r].job_key, key, GASNETC_KEY_LEN);
    if (amudp_ops.open(&t[r], &cfg[r])) return 1;
    size_t len = GASNETC_ADDR_MAX;
    amudp_ops.address(t[r], blobs + r * GASNETC_ADDR_MAX, &len);
  }
  blobs[GASNETC_ADDR_MAX + 22] = 2;
  int rc = amudp_ops.connect(t[0], blobs, GASNETC_ADDR_MAX, tt_serves_all());
  int ok = rc == -EPROTO;
  printf("  a peer of wire version 2 at connect: expected rc %d got %d %s\n", -EPROTO, rc,
         ok ? "ok" : "MISMATCH");
  amudp_ops.close(t[1]);
  amudp_ops.close(t[0]);
  return !ok;
}

int main(void) {
  gasnetc_transport_config_t cfg[2];
  gasnetc_transport_t *t[2];
  unsigned char key[GASNETC_KEY_LEN], other[GASNETC_KEY_LEN];
  getrandom(key, sizeof key, 0);
  getrandom(other, sizeof other, 0);
  unsigned char blobs[2 * GASNETC_ADDR_MAX] = {0};
  for (int r = 0; r < 2; r++) {
    memset(&cfg[r], 0, sizeof cfg[r]);
    cfg[r].myrank = (uint32_t)r;
    cfg[r].nranks = 2;
    memcpy(cfg[r].job_key, key, sizeof key);
    cfg[r].bind_addr.ss_family = AF_UNSPEC;
    cfg[r].getenv = tgetenv;
    cfg[r].watch = tt_watch_cb;
    cfg[r].deliver = on_deliver;
    if (amudp_ops.open(&t[r], &cfg[r])) return 1;
    size_t len = GASNETC_ADDR_MAX;
    amudp_ops.address(t[r], blobs + r * GASNETC_ADDR_MAX, &len);
  }
  for (int r = 0; r < 2; r++)
    if (amudp_ops.connect(t[r], blobs, GASNETC_ADDR_MAX, tt_serves_all())) return 1;
  /* rank 0's address from its blob: version, family, port (BE), addr */
  memset(&victim, 0, sizeof victim);
  victim.sin_family = AF_INET;
  memcpy(&victim.sin_port, blobs + 2, 2);
  memcpy(&victim.sin_addr, blobs + 4, 4);
  /* The attacker: another port on the same host. */
  attacker_fd = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(attacker_fd, (struct sockaddr *)&a, sizeof a);

  amudp_wire_keys_t good, foreign;
  amudp_wire_keys_init(&good, key, sizeof key);
  amudp_wire_keys_init(&foreign, other, sizeof other);
  unsigned char buf[4096];
  struct { const char *name, *counter; int want; } cls[] = {
    {"short", "udp_bad_short", 0},   {"magic", "udp_bad_magic", 0},
    {"tag", "udp_bad_tag", 0},       {"mac", "udp_bad_mac", 0},
    {"rank", "udp_bad_rank", 0},     {"type", "udp_bad_type", 0},
    {"length", "udp_bad_length", 0}, {"addr", "udp_bad_addr", 0},
    {"agg", "udp_bad_agg", 0},       {"version", "udp_bad_version", 0},
  };
  uint64_t rnd;
  /* short: random 1..63 bytes, and a real header cut to 40 bytes */
  for (int i = 0; i < 20; i++) {
    getrandom(buf, sizeof buf, 0);
    getrandom(&rnd, sizeof rnd, 0);
    shoot(buf, 1 + rnd % 63); cls[0].want++;
  }
  make_data(buf, &good, 1, 0, AMUDP_T_DATA, 10, 0, 10, 32);
  shoot(buf, 40); cls[0].want++;
  /* magic: random garbage of 64..4096 bytes (magic forced wrong) */
  for (int i = 0; i < 20; i++) {
    getrandom(buf, sizeof buf, 0);
    getrandom(&rnd, sizeof rnd, 0);
    buf[0] = 0; buf[1] = 0;
    shoot(buf, 64 + rnd % (sizeof buf - 64)); cls[1].want++;
  }
  /* tag: another job's well-formed datagrams, DATA and ACK */
  for (int i = 0; i < 5; i++) {
    shoot(buf, make_data(buf, &foreign, 1, 0, AMUDP_T_DATA, 10, 0, 10, 32)); cls[2].want++;
    shoot(buf, make_data(buf, &foreign, 1, 0, AMUDP_T_ACK, 0, 0, 0, 0)); cls[2].want++;
  }
  /* mac: this job's header, then a field changed (seq, src, length) */
  for (int i = 0; i < 3; i++) {
    size_t n = make_data(buf, &good, 1, 0, AMUDP_T_DATA, 10, 0, 10, 32);
    buf[20 + 4 * i] ^= 1; /* seq, ack, sack bytes */
    shoot(buf, n); cls[3].want++;
  }
  {
    size_t n = make_data(buf, &good, 1, 0, AMUDP_T_DATA, 10, 0, 10, 32);
    buf[56] ^= 0x80; /* the MAC itself */
    shoot(buf, n); cls[3].want++;
  }
  /* rank: src out of range, src = receiver, dst = someone else */
  shoot(buf, make_data(buf, &good, 5, 0, AMUDP_T_DATA, 10, 0, 10, 32)); cls[4].want++;
  shoot(buf, make_data(buf, &good, 0, 0, AMUDP_T_DATA, 10, 0, 10, 32)); cls[4].want++;
  shoot(buf, make_data(buf, &good, 1, 1, AMUDP_T_DATA, 10, 0, 10, 32)); cls[4].want++;
  /* type */
  shoot(buf, make_data(buf, &good, 1, 0, 9, 0, 0, 0, 0)); cls[5].want++;
  shoot(buf, make_data(buf, &good, 1, 0, 0, 0, 0, 0, 0)); cls[5].want++;
  /* length: slice past the frame end, hdrlen past the datagram, hdrlen too
   * big, control datagram with a body, frame over max_payload */
  shoot(buf, make_data(buf, &good, 1, 0, AMUDP_T_DATA, 1000, 950, 100, 32)); cls[6].want++;
  { size_t n = make_data(buf, &good, 1, 0, AMUDP_T_DATA, 10, 0, 0, 200); shoot(buf, n - 100); cls[6].want++; }
  shoot(buf, make_data(buf, &good, 1, 0, AMUDP_T_DATA, 10, 0, 10, 1000)); cls[6].want++;
  shoot(buf, make_data(buf, &good, 1, 0, AMUDP_T_ACK, 0, 0, 16, 0)); cls[6].want++;
  shoot(buf, make_data(buf, &good, 1, 0, AMUDP_T_NOTE, 0, 0, 16, 0)); cls[6].want++;
  shoot(buf, make_data(buf, &good, 1, 0, AMUDP_T_DATA, 0xffffffffu, 0, 10, 32)); cls[6].want++;
  /* agg: aggregates with a valid MAC and one record or count inconsistent */
  for (int m = 1; m <= 9; m++) { shoot(buf, make_agg(buf, &good, 3, 10, m)); cls[8].want++; }
  /* version: an older (1) and a future (255) build of this job, MAC valid */
  for (int v = 0; v < 2; v++) {
    size_t n = make_data(buf, &good, 1, 0, AMUDP_T_DATA, 10, 0, 10, 32);
    buf[2] = v ? 255 : 1;
    gasneti_put_le64(buf + 56, amudp_siphash(good.mac_k0, good.mac_k1, buf, 56));
    shoot(buf, n); cls[9].want++;
  }
  /* addr: perfectly valid datagrams claiming rank 1, from the wrong address */
  shoot(buf, make_data(buf, &good, 1, 0, AMUDP_T_DATA, 10, 0, 10, 32)); cls[7].want++;
  shoot(buf, make_data(buf, &good, 1, 0, AMUDP_T_PING, 0, 0, 0, 0)); cls[7].want++;
  shoot(buf, make_data(buf, &good, 1, 0, AMUDP_T_BYE, 0, 0, 0, 0)); cls[7].want++;
  shoot(buf, make_agg(buf, &good, 3, 10, 0)); cls[7].want++; /* a good aggregate */

  int total = 0;
  for (size_t c = 0; c < sizeof cls / sizeof cls[0]; c++) total += cls[c].want;
  /* Datagrams on loopback arrive in microseconds; the bound only catches a
   * hang (a crowded host may still take a while to schedule us). */
  double end = tjob_now() + 20.0;
  while (tjob_now() < end && tjob_stat(t[0], "udp_bad_datagrams") < total) {
    tt_wait(&amudp_ops, t[0], 10);
    amudp_ops.poll(t[1]);
  }
  int fails = 0;
  printf("t_amudp_forge: sent %d bad datagrams to rank 0\n", total);
  for (size_t c = 0; c < sizeof cls / sizeof cls[0]; c++) {
    long long got = tjob_stat(t[0], cls[c].counter);
    int ok = got == cls[c].want;
    fails += !ok;
    printf("  %-7s %-16s expected %3d got %3lld %s\n", cls[c].name, cls[c].counter,
           cls[c].want, got, ok ? "ok" : "MISMATCH");
  }
  long long bad = tjob_stat(t[0], "udp_bad_datagrams");
  printf("  udp_bad_datagrams expected %d got %lld %s\n", total, bad, bad == total ? "ok" : "MISMATCH");
  printf("  frames delivered by the attack: expected 0 got %d %s\n", g_delivered,
         g_delivered == 0 ? "ok" : "MISMATCH");
  fails += bad != total || g_delivered != 0;

  /* The endpoint still works: a real frame from rank 1, and rank 1 was not
   * fooled into thinking rank 0 said BYE. */
  unsigned char hdr[16] = "real frame";
  int rc = tt_send(&amudp_ops, t[1], 0, hdr, sizeof hdr, "payload", 7, 0);
  end = tjob_now() + 20.0;
  while (g_delivered == 0 && tjob_now() < end) {
    amudp_ops.poll(t[1]);
    tt_wait(&amudp_ops, t[0], 10);
  }
  printf("  after the attack, rank 1 -> rank 0 send rc=%d, delivered expected 1 got %d %s\n", rc,
         g_delivered, g_delivered == 1 ? "ok" : "MISMATCH");
  fails += g_delivered != 1 || rc != 0;
  amudp_ops.close(t[1]);
  amudp_ops.close(t[0]);
  close(attacker_fd);
  fails += version_at_connect(cfg, key);
  printf("t_amudp_forge: %s\n", fails ? "FAILED" : "every bad datagram dropped and counted");
  return fails ? 1 : 0;
}
