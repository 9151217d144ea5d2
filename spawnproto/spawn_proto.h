/*
 * spawn_proto.h - the one wire format of the launcher protocol: between the
 * launcher, its relays, and the ranks (bootstrap client). Decoded only in
 * spawn_proto.c. Both sides link it (spawnproto/libspawnproto.la); it
 * calls neither spawner/ nor bootstrap/.
 *
 * Byte order: every integer is big-endian (network order). Signal numbers
 * are Linux numbers (all hosts of a job run Linux).
 *
 * A connection carries frames: a 16-byte header then `len` payload bytes.
 *   u32 len    payload bytes on the wire (<= SPAWN_MAX_WIRE)
 *   u16 type   enum spawn_type
 *   u16 flags  SPAWN_F_ZLIB: payload is u32 raw length + zlib stream
 *   u32 a, b   type-specific arguments (see enum spawn_type)
 *
 * Handshake (the connecting side is a rank or a relay, the accepting side a
 * node: the launcher or a relay):
 *   node -> HELLO   payload: "GASNETRN" u32 version, node nonce[32]
 *   conn -> AUTH    payload: u32 kind, u32 id, conn nonce[32],
 *                   mac[32] = HMAC(secret, "C" nonces kind id), u8 n, host[n]
 *   node -> WELCOME payload: mac[32] = HMAC(secret, "S" nonces kind id), body
 *                   rank body: u32 rank, u32 size, env (spawn_env_put)
 *                   relay body: the node config (spawn_cfg_put)
 * A connection whose AUTH is malformed or wrong is logged and closed. The
 * secret itself never travels on the network.
 *
 * Strings are u32 length + bytes (no NUL), at most SPAWN_MAX_STR.
 */
#ifndef SPAWN_PROTO_H
#define SPAWN_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gasneti_bytes.h"

#define SPAWN_VERSION     1
#define SPAWN_MAGIC       "GASNETRN"
#define SPAWN_MAGIC_LEN   8
#define SPAWN_HDR_LEN     16
#define SPAWN_SECRET_LEN  32
#define SPAWN_NONCE_LEN   32
#define SPAWN_MAC_LEN     32
#define SPAWN_MAX_WIRE    (64u << 20)   /* largest payload on the wire */
#define SPAWN_MAX_RAW     (256u << 20)  /* largest payload once inflated */
/* A relay or rank joining the launcher gives up after this long: the
 * launcher's own default wait for a relay to connect back. */
#define SPAWN_JOIN_TIMEOUT_MS 30000
#define SPAWN_MAX_STR     (1u << 20)    /* largest string in a payload */
#define SPAWN_ZLIB_MIN    4096          /* payloads above this are compressed */
#define SPAWN_ID_ANY      0xffffffffu   /* AUTH id of a relay that wants one assigned */

#define SPAWN_HELLO_LEN   (SPAWN_MAGIC_LEN + 4 + SPAWN_NONCE_LEN)
#define SPAWN_AUTH_MIN    (4 + 4 + SPAWN_NONCE_LEN + SPAWN_MAC_LEN + 1)
#define SPAWN_AUTH_MAX    (SPAWN_AUTH_MIN + 255)
_Static_assert(SPAWN_HELLO_LEN == 44, "HELLO payload is 44 bytes");
_Static_assert(SPAWN_AUTH_MIN == 73, "AUTH payload is 73 bytes + host name");

enum spawn_type {
  SPAWN_HELLO       = 1,  /* node->conn: see above */
  SPAWN_AUTH        = 2,  /* conn->node */
  SPAWN_WELCOME     = 3,  /* node->conn */
  SPAWN_COLL        = 10, /* up:   a=op b=len; payload u32 lo, u32 count, data */
  SPAWN_COLL_RESULT = 11, /* down: a=op b=len; payload data */
  SPAWN_FINI        = 20, /* up:   a=code b=rank (b ignored from a rank) */
  SPAWN_ABORT       = 21, /* up:   a=code b=rank; payload message */
  SPAWN_EXIT        = 22, /* up:   a=rank b=0; payload u32 how, value, flags */
  SPAWN_OUTPUT      = 23, /* up:   a=rank b=stream (1 stdout, 2 stderr); bytes */
  SPAWN_DONE        = 24, /* up:   every process of the relay's subtree is gone */
  SPAWN_FAIL        = 25, /* up:   payload message; the relay cannot go on;
                           *       a=1: a notice printed even while the job ends */
  SPAWN_PONG        = 26, /* up:   answer to PING: the relay is alive */
  SPAWN_SIGNAL      = 30, /* down: a=signal to deliver to every rank below */
  SPAWN_PING        = 31, /* down: are you there? (every NODE_PING_MS) */
};

enum { SPAWN_F_ZLIB = 1u << 0 };

enum spawn_op { SPAWN_OP_EXCHANGE = 1, SPAWN_OP_BCAST = 2, SPAWN_OP_BARRIER = 3 };
enum spawn_kind { SPAWN_KIND_RANK = 1, SPAWN_KIND_RELAY = 2 };

/* SPAWN_EXIT payload */
enum spawn_how { SPAWN_HOW_EXITED = 0, SPAWN_HOW_SIGNALED = 1 };
enum { SPAWN_EXIT_CONNECTED = 1u << 0, SPAWN_EXIT_FINISHED = 1u << 1 };
#define SPAWN_EXIT_LEN 12
_Static_assert(SPAWN_EXIT_LEN == 3 * 4, "EXIT payload is how, value, flags");

typedef struct spawn_hdr {
  uint32_t len;
  uint16_t type, flags;
  uint32_t a, b;
} spawn_hdr_t;

/* ---- byte buffers: growable writer, bounds-checked reader ---- */
typedef struct spawn_buf { uint8_t *p; size_t len, cap; } spawn_buf_t;

void spawn_buf_put(spawn_buf_t *b, const void *d, size_t n); /* aborts on OOM */
void spawn_buf_u32(spawn_buf_t *b, uint32_t v);
void spawn_buf_str(spawn_buf_t *b, const char *s);
void spawn_buf_free(spawn_buf_t *b);

typedef struct spawn_rd { const uint8_t *p, *end; int bad; } spawn_rd_t;

uint32_t spawn_rd_u32(spawn_rd_t *r);                 /* 0 and r->bad when short */
const uint8_t *spawn_rd_bytes(spawn_rd_t *r, size_t n); /* NULL and r->bad when short */
char *spawn_rd_str(spawn_rd_t *r);                    /* malloc'd; NULL and r->bad */
/* Integers are written and read with gasneti_put_be32 / gasneti_get_be32
 * (common/gasneti_bytes.h). */

/* ---- frames ---- */
/* Append a whole frame (header + payload, deflated when len > SPAWN_ZLIB_MIN
 * and that helps) to out. */
void spawn_frame_put(spawn_buf_t *out, uint16_t type, uint32_t a, uint32_t b,
                     const void *payload, size_t len);
/* Decode and check a header: 0, or -EPROTO (unknown type/flags, too long). */
int spawn_hdr_decode(const uint8_t p[SPAWN_HDR_LEN], spawn_hdr_t *h);
/* The raw payload of a frame whose wire payload is `wire`: either wire itself
 * (*owned = NULL) or an inflated copy the caller frees (*owned). 0 or -EPROTO. */
int spawn_frame_payload(const spawn_hdr_t *h, const uint8_t *wire,
                        const uint8_t **raw, size_t *rawlen, uint8_t **owned);
const char *spawn_type_name(unsigned type);

/* ---- payloads: each encoded and decoded here only; decoders return 0 or
 * -EPROTO and point into the payload they were given ---- */
void spawn_hello_encode(uint8_t out[SPAWN_HELLO_LEN], const uint8_t nonce[SPAWN_NONCE_LEN]);
int spawn_hello_decode(const uint8_t *p, size_t len, const uint8_t **nonce);

typedef struct spawn_auth {
  uint32_t kind, id;
  const uint8_t *cnonce, *mac;
  char host[256];
} spawn_auth_t;
/* out must hold SPAWN_AUTH_MAX bytes; returns the payload length */
size_t spawn_auth_encode(uint8_t *out, uint32_t kind, uint32_t id, const uint8_t cnonce[SPAWN_NONCE_LEN],
                         const uint8_t mac[SPAWN_MAC_LEN], const char *host);
int spawn_auth_decode(const uint8_t *p, size_t len, spawn_auth_t *a);

/* COLL payload: the ranks it covers (or the broadcast root) and its data */
typedef struct spawn_coll_part {
  uint32_t lo, count;
  const uint8_t *data;
  size_t dlen;
} spawn_coll_part_t;
void spawn_coll_encode(spawn_buf_t *b, uint32_t lo, uint32_t count, const void *data, size_t dlen);
int spawn_coll_decode(const uint8_t *p, size_t len, spawn_coll_part_t *c);

typedef struct spawn_exit { uint32_t how, value, flags; } spawn_exit_t;
void spawn_exit_encode(uint8_t out[SPAWN_EXIT_LEN], const spawn_exit_t *e);
int spawn_exit_decode(const uint8_t *p, size_t len, spawn_exit_t *e);

/* A rank's WELCOME body: rank, size, then the environment snapshot
 * (u32 count, count strings "K=V"), which spawn_env_put makes once. */
void spawn_env_put(spawn_buf_t *b, char **env, uint32_t n);
/* env: malloc'd array of n+1 malloc'd strings (NULL-terminated); on an
 * error nothing is left allocated (*env NULL) */
int spawn_welcome_rank_decode(const uint8_t *p, size_t len, uint32_t *rank, uint32_t *size,
                              char ***env, uint32_t *n);

/* ---- authentication ---- */
void spawn_auth_mac(const uint8_t secret[SPAWN_SECRET_LEN], char side,
                    const uint8_t snonce[SPAWN_NONCE_LEN],
                    const uint8_t cnonce[SPAWN_NONCE_LEN],
                    uint32_t kind, uint32_t id, uint8_t mac[SPAWN_MAC_LEN]);
void spawn_job_key(const uint8_t secret[SPAWN_SECRET_LEN], uint8_t key[32]);
int spawn_random(void *buf, size_t len);  /* getrandom; 0 or -errno */

/* zlib, one policy for every bootstrap payload (frames here, key-value
 * blobs in boot_kvs.c): level 1, since these are small tables on a LAN.
 * spawn_deflate writes at most spawn_deflate_bound(len) bytes to z and
 * returns their count, or 0 when they would not be fewer than `limit`
 * (send the payload raw). spawn_inflate fills exactly n bytes of out from
 * zlen bytes of z: 0, or -EPROTO when they are not a stream of n bytes. */
size_t spawn_deflate_bound(size_t len);
size_t spawn_deflate(const void *p, size_t len, uint8_t *z, size_t limit);
int spawn_inflate(void *out, size_t n, const uint8_t *z, size_t zlen);

/*
 * A ticket is what a process needs to join: one text line
 *   GASNETRUN1 <secret hex> <addr> <port> <kind> <id>
 * It travels only over an inherited pipe, the ssh channel's stdin, or a
 * mode-0600 file: never argv or environment. addr "-" means "the client
 * address in SSH_CONNECTION".
 */
#define SPAWN_TICKET_MAX 256
typedef struct spawn_ticket {
  uint8_t secret[SPAWN_SECRET_LEN];
  char addr[64];
  uint16_t port;
  uint32_t kind, id;
} spawn_ticket_t;
int spawn_ticket_format(const spawn_ticket_t *t, char *out, size_t outlen);
int spawn_ticket_parse(const char *line, spawn_ticket_t *t);
/* Read one line (a ticket) from fd, byte by byte so nothing after it is
 * consumed. 0 or -errno. */
int spawn_ticket_read(int fd, char *line, size_t len);

/*
 * Blocking client side of the handshake: connect to t->addr:port, check
 * HELLO, send AUTH(t->kind, t->id, host), check WELCOME. On success *fd is
 * the connected socket (FD_CLOEXEC, TCP_NODELAY) and *body the raw WELCOME
 * body after the mac (malloc'd). 0 or -errno; *why says what failed.
 */
int spawn_client_join(const spawn_ticket_t *t, const char *host, int *fd,
                      uint8_t **body, size_t *bodylen, const char **why);

/* Blocking frame I/O over a socket (EINTR retried). recv returns the raw
 * payload (malloc'd, inflated) or NULL for an empty one; 0, -EPIPE on EOF, or
 * -errno/-EPROTO. */
int spawn_send_frame(int fd, uint16_t type, uint32_t a, uint32_t b,
                     const void *payload, size_t len);
int spawn_recv_frame(int fd, spawn_hdr_t *h, uint8_t **payload, size_t *len);

#endif /* SPAWN_PROTO_H */
