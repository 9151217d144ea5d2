/*
 * t_auth - an intruder: connects to a launcher's port and tries to join.
 *   t_auth PORT wrong    full handshake as rank 0 with a random (wrong) secret
 *   t_auth PORT garbage  sends bytes that are not a gasnetrun frame
 *   t_auth PORT bigauth  sends an AUTH frame header claiming a 64 MiB payload
 *   t_auth PORT idle     sends nothing: must be closed after the launcher's
 *                        20 s, not before (the upper bound only catches a hang)
 * Prints what the launcher did and exits 0 when it refused us.
 */
#include "spawn_proto.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int dial(int port)
{
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
  inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(s, (struct sockaddr *)&sa, sizeof sa) < 0) { perror("t_auth: connect"); exit(2); }
  return s;
}

/* After our bad input the launcher must close the connection. */
static int expect_closed(int s)
{
  char buf[256];
  ssize_t n;
  while ((n = recv(s, buf, sizeof buf, 0)) > 0) {}
  printf("t_auth: launcher closed the connection (recv=%zd %s)\n", n, n < 0 ? strerror(errno) : "EOF");
  return 0;
}

int main(int argc, char **argv)
{
  if (argc < 3) return 2;
  int port = atoi(argv[1]);
  if (!strcmp(argv[2], "wrong")) {
    spawn_ticket_t t = { .port = (uint16_t)port, .kind = SPAWN_KIND_RANK, .id = 0 };
    snprintf(t.addr, sizeof t.addr, "127.0.0.1");
    spawn_random(t.secret, sizeof t.secret);
    int fd; uint8_t *body; size_t len; const char *why;
    int rc = spawn_client_join(&t, "intruder", &fd, &body, &len, &why);
    printf("t_auth: join with a wrong secret: rc=%d (%s) why=%s\n", rc, rc ? strerror(-rc) : "ok", why ? why : "-");
    return rc == -EPIPE || rc == -ECONNRESET ? 0 : 1;
  }
  int s = dial(port);
  if (!strcmp(argv[2], "garbage")) {
    const char junk[] = "GET / HTTP/1.0\r\n\r\n and some more garbage to fill a header";
    send(s, junk, sizeof junk, MSG_NOSIGNAL);
    return expect_closed(s);
  }
  if (!strcmp(argv[2], "bigauth")) {
    uint8_t h[SPAWN_HDR_LEN] = {0};
    gasneti_put_be32(h, 64u << 20);
    h[5] = SPAWN_AUTH;
    send(s, h, sizeof h, MSG_NOSIGNAL);
    return expect_closed(s);
  }
  if (!strcmp(argv[2], "idle")) {
    time_t t0 = time(NULL);
    expect_closed(s);
    long secs = (long)(time(NULL) - t0);
    printf("t_auth: idle connection closed after %ld s: expected not before 19 s (time() "
           "rounds down) and, not to count as a hang, within 60 s (expected about 20 s)\n", secs);
    return secs >= 19 && secs <= 60 ? 0 : 1;
  }
  return 2;
}
