/*
 * gasneti_bytes.h - integers to and from bytes in a stated byte order,
 * whatever the host's: little-endian for the transports' wire formats
 * (amudp_wire.h, amtcp_wire.h, core/gasnetc_wire.h), big-endian (network
 * order) for the launcher protocol (spawnproto/spawn_proto.h) and SHA-256.
 * Byte by byte, so any alignment will do; compilers make each one load or
 * store (and a byte swap where the orders differ).
 */
#ifndef GASNETI_BYTES_H
#define GASNETI_BYTES_H

#include <stdint.h>

/* ---- little-endian ---- */
static inline void gasneti_put_le16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8);
}
static inline void gasneti_put_le32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void gasneti_put_le64(uint8_t *p, uint64_t v) {
  gasneti_put_le32(p, (uint32_t)v);
  gasneti_put_le32(p + 4, (uint32_t)(v >> 32));
}
static inline uint16_t gasneti_get_le16(const uint8_t *p) {
  return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t gasneti_get_le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t gasneti_get_le64(const uint8_t *p) {
  return (uint64_t)gasneti_get_le32(p) | (uint64_t)gasneti_get_le32(p + 4) << 32;
}

/* ---- big-endian (network order) ---- */
static inline void gasneti_put_be16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v;
}
static inline void gasneti_put_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline void gasneti_put_be64(uint8_t *p, uint64_t v) {
  gasneti_put_be32(p, (uint32_t)(v >> 32));
  gasneti_put_be32(p + 4, (uint32_t)v);
}
static inline uint16_t gasneti_get_be16(const uint8_t *p) {
  return (uint16_t)(p[0] << 8 | p[1]);
}
static inline uint32_t gasneti_get_be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t gasneti_get_be64(const uint8_t *p) {
  return (uint64_t)gasneti_get_be32(p) << 32 | gasneti_get_be32(p + 4);
}

#endif /* GASNETI_BYTES_H */
