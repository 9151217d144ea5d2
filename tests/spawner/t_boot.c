/*
 * t_boot - a rank that exercises the bootstrap client (bootstrap/boot.h) as
 * told by its arguments, checks every result and prints what it compared.
 *   -x LEN      exchange LEN bytes per rank: byte i of rank r is (r*131+i*7)&255
 *   -b LEN ROOT broadcast LEN bytes from ROOT: byte i is (ROOT*17+i*3)&255
 *   -B K        K barriers
 *   -g NAME     print boot_getenv(NAME) and getenv(NAME)
 *   -p K LEN    print K lines of LEN characters, all the same letter per rank
 *   -s SECS     sleep (in a loop, so signals end it) before finishing
 *   -z R SECS   only rank R sleeps
 *   -P          print "pid: rank R pid P" at once
 *   -k R SIG    rank R raises SIG (after the other steps)
 *   -a CODE     rank 0 calls boot_abort(CODE, "t_boot abort")
 *   -f          exit without boot_fini
 *   -e CODE     boot_fini(CODE) then exit(CODE) (default 0)
 *   -r R CODE   only rank R uses exit code CODE, the others 0
 *   -m R        rank R calls boot_barrier where the others call boot_exchange
 *   -q          quiet: no summary line
 */
#include "boot.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

static unsigned sum(const unsigned char *p, size_t n)
{
  unsigned s = 0;
  for (size_t i = 0; i < n; i++) s = s * 31 + p[i];
  return s;
}

int main(int argc, char **argv)
{
  int rc = boot_init(&argc, &argv);
  if (rc) { fprintf(stderr, "t_boot: boot_init failed: %d\n", rc); return 99; }
  uint32_t me = boot_rank(), n = boot_size();
  int code = 0, nofini = 0, quiet = 0, coderank = -1, ccode = 0;
  char out[512] = "";
  size_t ol = 0;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-x") && i + 1 < argc) {
      size_t len = strtoul(argv[++i], 0, 10);
      unsigned char *mine = malloc(len + 1), *all = malloc(len * n + 1);
      for (size_t j = 0; j < len; j++) mine[j] = (unsigned char)((me * 131 + j * 7) & 255);
      if (boot_exchange(mine, len, all)) { fprintf(stderr, "rank %u: exchange failed\n", me); return 98; }
      for (uint32_t r = 0; r < n; r++)
        for (size_t j = 0; j < len; j++)
          if (all[r * len + j] != (unsigned char)((r * 131 + j * 7) & 255)) {
            fprintf(stderr, "rank %u: exchange MISMATCH at rank %u byte %zu: got %u want %u\n", me, r, j,
                    all[r * len + j], (unsigned)((r * 131 + j * 7) & 255));
            return 97;
          }
      ol += snprintf(out + ol, sizeof out - ol, " exchange(%zu x %u) ok sum=%08x", len, n, sum(all, len * n));
      free(mine); free(all);
    } else if (!strcmp(a, "-b") && i + 2 < argc) {
      size_t len = strtoul(argv[++i], 0, 10);
      uint32_t root = (uint32_t)atoi(argv[++i]);
      unsigned char *buf = calloc(1, len + 1);
      if (me == root) for (size_t j = 0; j < len; j++) buf[j] = (unsigned char)((root * 17 + j * 3) & 255);
      if (boot_broadcast(buf, len, root)) { fprintf(stderr, "rank %u: broadcast failed\n", me); return 98; }
      for (size_t j = 0; j < len; j++)
        if (buf[j] != (unsigned char)((root * 17 + j * 3) & 255)) {
          fprintf(stderr, "rank %u: broadcast MISMATCH at byte %zu\n", me, j);
          return 97;
        }
      ol += snprintf(out + ol, sizeof out - ol, " bcast(%zu from %u) ok sum=%08x", len, root, sum(buf, len));
      free(buf);
    } else if (!strcmp(a, "-B") && i + 1 < argc) {
      int k = atoi(argv[++i]);
      for (int j = 0; j < k; j++)
        if (boot_barrier()) { fprintf(stderr, "rank %u: barrier failed\n", me); return 98; }
      ol += snprintf(out + ol, sizeof out - ol, " barriers(%d) ok", k);
    } else if (!strcmp(a, "-g") && i + 1 < argc) {
      const char *nm = argv[++i], *b = boot_getenv(nm), *g = getenv(nm);
      ol += snprintf(out + ol, sizeof out - ol, " boot_getenv(%s)=%s getenv(%s)=%s", nm, b ? b : "(null)",
                     nm, g ? g : "(null)");
    } else if (!strcmp(a, "-p") && i + 2 < argc) {
      int k = atoi(argv[++i]);
      size_t len = strtoul(argv[++i], 0, 10);
      char *line = malloc(len + 2);
      memset(line, 'A' + (int)(me % 26), len);
      line[len] = '\n';
      for (int j = 0; j < k; j++) fwrite(line, 1, len + 1, stdout);
      fflush(stdout);
      free(line);
    } else if (!strcmp(a, "-s") && i + 1 < argc) {
      int s = atoi(argv[++i]);
      for (int j = 0; j < s * 10; j++) usleep(100000);
    } else if (!strcmp(a, "-z") && i + 2 < argc) {
      uint32_t r = (uint32_t)atoi(argv[++i]);
      int s = atoi(argv[++i]);
      for (int j = 0; r == me && j < s * 10; j++) usleep(100000);
    } else if (!strcmp(a, "-P")) {
      printf("pid: rank %u pid %d\n", me, (int)getpid());
      fflush(stdout);
    } else if (!strcmp(a, "-k") && i + 2 < argc) {
      uint32_t r = (uint32_t)atoi(argv[++i]);
      int sig = atoi(argv[++i]);
      if (r == me) raise(sig);
    } else if (!strcmp(a, "-a") && i + 1 < argc) {
      int c = atoi(argv[++i]);
      if (me == 0) boot_abort(c, "t_boot abort");
    } else if (!strcmp(a, "-f")) {
      nofini = 1;
    } else if (!strcmp(a, "-e") && i + 1 < argc) {
      code = atoi(argv[++i]);
    } else if (!strcmp(a, "-r") && i + 2 < argc) {
      coderank = atoi(argv[++i]);
      ccode = atoi(argv[++i]);
    } else if (!strcmp(a, "-m") && i + 1 < argc) {
      uint32_t r = (uint32_t)atoi(argv[++i]);
      char all[8 * 1024], mine[8] = "x";
      int rc2 = r == me ? boot_barrier() : boot_exchange(mine, sizeof mine, all);
      ol += snprintf(out + ol, sizeof out - ol, " mismatched collective returned %d", rc2);
    } else if (!strcmp(a, "-q")) {
      quiet = 1;
    } else if (!strcmp(a, "-A")) {
      struct sockaddr_storage ss;
      socklen_t sl;
      char ab[64] = "none";
      unsigned char key[BOOT_JOB_KEY_LEN];
      if (boot_self_addr(&ss, &sl) == 0 && ss.ss_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, ab, sizeof ab);
      boot_job_key(key);
      ol += snprintf(out + ol, sizeof out - ol, " self_addr=%s key=%02x%02x%02x%02x", ab, key[0], key[1], key[2], key[3]);
    }
  }
  if (coderank >= 0) code = (int)me == coderank ? ccode : 0;
  if (!quiet) printf("rank %u/%u:%s\n", me, n, out);
  fflush(stdout);
  if (!nofini) boot_fini(code);
  _exit(code);
}
