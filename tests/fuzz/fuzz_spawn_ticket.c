/*
 * fuzz_spawn_ticket.c - libFuzzer harness for the launcher ticket
 * (spawn_ticket_parse, spawnproto/spawn_proto.c): the one line a rank or relay
 * reads from its inherited pipe, ssh stdin or ticket file. A ticket that
 * parses has a secret of exactly 64 hex digits, and formats back
 * (spawn_ticket_format) to a line that parses to the same ticket.
 *
 * Input: the line (as spawn_ticket_read returns it: up to the first
 * newline, NUL-terminated).
 */
#include "spawn_proto.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size >= SPAWN_TICKET_MAX) size = SPAWN_TICKET_MAX - 1;
  char *line = malloc(size + 1);
  memcpy(line, data, size);
  line[size] = 0;
  char *nl = strchr(line, '\n');
  if (nl) *nl = 0;
  spawn_ticket_t t, u;
  memset(&t, 0, sizeof t);
  memset(&u, 0, sizeof u);
  if (spawn_ticket_parse(line, &t) == 0) {
    const char *hex = line + strlen("GASNETRUN1");
    hex += strspn(hex, " \t\n\v\f\r");
    if (strspn(hex, "0123456789abcdefABCDEF") != 2 * SPAWN_SECRET_LEN) __builtin_trap();
    char again[SPAWN_TICKET_MAX];
    if (spawn_ticket_format(&t, again, sizeof again) == 0) {
      if (spawn_ticket_parse(again, &u) != 0 || memcmp(&t, &u, sizeof t)) __builtin_trap();
    }
  }
  free(line);
  return 0;
}
