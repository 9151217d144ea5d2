/*
 * ssh_probe - the rank program of the multi-host launcher tests
 * (tests/spawner/t-ssh*.sh, t-netns*.sh).
 *
 * Every rank reports where it runs and checks the bootstrap collectives with
 * data it can predict:
 *   - one line "probe-self: rank R/N host H sshd S netns I pid P env E benv B"
 *     written by the rank itself (so the test sees every host's stdout
 *     arrive; E is getenv("GNT_PROBE_ENV"), B boot_getenv("GNT_PROBE_BENV")),
 *     then "probe-argv: rank R argc N: [arg1] [arg2]...",
 *     "probe-cwd: rank R DIR" and "probe-addr: rank R ADDR" (boot_self_addr);
 *   - boot_exchange of every rank's record (rank, size, pid, host, netns) and
 *     of a BIG-byte pattern per rank (large enough to take the compressed
 *     path); every rank checks all of it, rank 0 prints the record table as
 *     "probe-table: ..." lines;
 *   - boot_broadcast of a pattern from the last rank, seeded with its pid;
 *   - boot_barrier, checked through files in a directory all ranks see
 *     (the "hosts" of a test share this machine's file system): a rank
 *     creates DIR/pre.R before the barrier and, after it, finds every
 *     rank's file.
 *
 * "host" is the server address of the ssh connection that started the rank
 * (SSH_CONNECTION of the nearest ancestor started by a test sshd, one that
 * carries GNT_SSHD_NAME), or "local"; "sshd" is that daemon's name.
 *
 * Options (after them, any argument is ignored: tests put marker tokens there):
 *   --dir DIR        barrier check directory (default: no barrier file check)
 *   --big BYTES      size of the per-rank exchange pattern (default 8192)
 *   --sleep SECS     after the checks, every rank sleeps SECS seconds
 *   --ignore-term    ignore SIGTERM, SIGQUIT, SIGINT, SIGHUP (only SIGKILL ends it)
 *   --spew LINES     after the checks, every rank prints LINES lines
 *                    "probe-spew: rank R line L X...X" (60 X, X = 'a' + (R+L)%26)
 *   --exit R:CODE    rank R ends with gasnet-style exit CODE (boot_fini(CODE))
 *   --die R:CODE     rank R _exit(CODE)s without telling the launcher
 *   --kill R         rank R kills itself with SIGKILL after the checks
 *   --abort R:CODE   rank R calls boot_abort(CODE, "probe abort")
 * Exit: 0; 3 boot_init failed; 4 a collective returned an error;
 *       5 a check failed (a line "probe-error: ..." says which).
 */
#include "boot.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

struct probe_rec {
    uint32_t rank, size, pid, pad;
    uint64_t netns;
    char host[64];
    char sshd[32];
    char hostname[64];
};

static uint32_t rank_, size_;

static void probe_fail(int code, const char *what)
{
    printf("probe-error: rank %" PRIu32 ": %s\n", rank_, what);
    fflush(stdout);
    _exit(code);
}

/* Value of NAME in /proc/PID/environ, or NULL (static buffer). */
static const char *probe_environ_get(pid_t pid, const char *name)
{
    static char buf[65536];
    char path[64];
    size_t nlen = strlen(name), off = 0;
    ssize_t n;
    int fd;

    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    if ((fd = open(path, O_RDONLY)) < 0)
        return NULL;
    while (off < sizeof buf - 1 && (n = read(fd, buf + off, sizeof buf - 1 - off)) > 0)
        off += (size_t)n;
    close(fd);
    buf[off] = '\0';
    for (size_t i = 0; i < off; i += strlen(buf + i) + 1)
        if (strncmp(buf + i, name, nlen) == 0 && buf[i + nlen] == '=')
            return buf + i + nlen + 1;
    return NULL;
}

static pid_t probe_parent(pid_t pid)
{
    char path[64], line[512];
    FILE *f;
    int ppid = 0;

    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (!(f = fopen(path, "r")))
        return 0;
    if (fgets(line, sizeof line, f)) {
        char *p = strrchr(line, ')');   /* comm may hold spaces */
        if (p)
            sscanf(p + 2, "%*c %d", &ppid);
    }
    fclose(f);
    return (pid_t)ppid;
}

/* Where the rank runs: the nearest ancestor (or itself) started by a test sshd. */
static void probe_where(struct probe_rec *r)
{
    pid_t p = getpid();
    snprintf(r->host, sizeof r->host, "local");
    snprintf(r->sshd, sizeof r->sshd, "-");
    for (int depth = 0; p > 1 && depth < 16; depth++, p = probe_parent(p)) {
        const char *name = probe_environ_get(p, "GNT_SSHD_NAME");
        if (!name)
            continue;
        snprintf(r->sshd, sizeof r->sshd, "%s", name);
        const char *conn = probe_environ_get(p, "SSH_CONNECTION");
        char a[64], b[64], c[64];
        if (conn && sscanf(conn, "%63s %63s %63s", a, b, c) == 3)
            snprintf(r->host, sizeof r->host, "%s", c);
        return;
    }
}

static unsigned char probe_byte(uint32_t who, size_t i) { return (unsigned char)(who * 131u + i * 7u + (i >> 8)); }

static int probe_rank_arg(const char *s, uint32_t *r, int *code)
{
    char *end;
    *r = (uint32_t)strtoul(s, &end, 10);
    if (code) {
        if (*end != ':')
            return -1;
        *code = atoi(end + 1);
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    size_t big = 8192;
    int sleep_s = 0, exit_code = 0, die_code = 0, abort_code = 0, spew = 0;
    uint32_t exit_rank = UINT32_MAX, die_rank = UINT32_MAX, kill_rank = UINT32_MAX, abort_rank = UINT32_MAX;
    int rc;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if ((rc = boot_init(&argc, &argv)) != 0) {
        printf("probe-error: boot_init: %s\n", strerror(-rc));
        return 3;
    }
    rank_ = boot_rank();
    size_ = boot_size();

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--dir") && v) dir = v, i++;
        else if (!strcmp(a, "--big") && v) big = strtoul(v, NULL, 10), i++;
        else if (!strcmp(a, "--sleep") && v) sleep_s = atoi(v), i++;
        else if (!strcmp(a, "--spew") && v) spew = atoi(v), i++;
        else if (!strcmp(a, "--ignore-term")) {   /* a rank that will not die politely */
            signal(SIGTERM, SIG_IGN);
            signal(SIGQUIT, SIG_IGN);
            signal(SIGINT, SIG_IGN);
            signal(SIGHUP, SIG_IGN);
        }
        else if (!strcmp(a, "--exit") && v && !probe_rank_arg(v, &exit_rank, &exit_code)) i++;
        else if (!strcmp(a, "--die") && v && !probe_rank_arg(v, &die_rank, &die_code)) i++;
        else if (!strcmp(a, "--abort") && v && !probe_rank_arg(v, &abort_rank, &abort_code)) i++;
        else if (!strcmp(a, "--kill") && v && !probe_rank_arg(v, &kill_rank, NULL)) i++;
        /* anything else: a marker token */
    }

    struct probe_rec me, *all;
    struct stat st;
    memset(&me, 0, sizeof me);
    me.rank = rank_;
    me.size = size_;
    me.pid = (uint32_t)getpid();
    me.netns = stat("/proc/self/ns/net", &st) == 0 ? (uint64_t)st.st_ino : 0;
    probe_where(&me);
    gethostname(me.hostname, sizeof me.hostname - 1);
    const char *benv = boot_getenv("GNT_PROBE_BENV");
    const char *lenv = getenv("GNT_PROBE_ENV");
    printf("probe-self: rank %" PRIu32 "/%" PRIu32 " host %s sshd %s netns %" PRIu64 " pid %" PRIu32
           " env %s benv %s\n", rank_, size_, me.host, me.sshd, me.netns, me.pid,
           lenv ? lenv : "(unset)", benv ? benv : "(unset)");
    {   /* what the rank got as arguments and working directory, verbatim */
        char cwd[4096];
        printf("probe-argv: rank %" PRIu32 " argc %d:", rank_, argc);
        for (int i = 1; i < argc; i++)
            printf(" [%s]", argv[i]);
        printf("\nprobe-cwd: rank %" PRIu32 " %s\n", rank_, getcwd(cwd, sizeof cwd) ? cwd : "(unknown)");
    }
    {   /* the address a transport would bind and advertise */
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        char ab[INET6_ADDRSTRLEN] = "(none)";
        if (boot_self_addr(&ss, &sl) == 0) {
            if (ss.ss_family == AF_INET)
                inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, ab, sizeof ab);
            else if (ss.ss_family == AF_INET6)
                inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, ab, sizeof ab);
        }
        printf("probe-addr: rank %" PRIu32 " %s\n", rank_, ab);
    }

    /* exchange of the records */
    if (!(all = calloc(size_, sizeof *all)))
        probe_fail(5, "out of memory");
    if ((rc = boot_exchange(&me, sizeof me, all)) != 0)
        probe_fail(4, "boot_exchange(records) failed");
    for (uint32_t r = 0; r < size_; r++)
        if (all[r].rank != r || all[r].size != size_ || all[r].pid == 0)
            probe_fail(5, "exchanged record table is wrong");
    if (memcmp(&all[rank_], &me, sizeof me))
        probe_fail(5, "own record differs after exchange");
    if (rank_ == 0)
        for (uint32_t r = 0; r < size_; r++)
            printf("probe-table: rank %" PRIu32 " host %s sshd %s netns %" PRIu64 " pid %" PRIu32 "\n",
                   r, all[r].host, all[r].sshd, all[r].netns, all[r].pid);

    /* exchange of a large pattern */
    unsigned char *mine = malloc(big ? big : 1), *every = malloc(big * size_ + 1);
    if (!mine || !every)
        probe_fail(5, "out of memory");
    for (size_t i = 0; i < big; i++)
        mine[i] = probe_byte(rank_, i);
    if (big && boot_exchange(mine, big, every) != 0)
        probe_fail(4, "boot_exchange(big) failed");
    for (uint32_t r = 0; r < size_; r++)
        for (size_t i = 0; i < big; i++)
            if (every[(size_t)r * big + i] != probe_byte(r, i))
                probe_fail(5, "large exchange: wrong byte");

    /* broadcast from the last rank, seeded with its pid */
    uint32_t root = size_ - 1, seed = all[root].pid;
    unsigned char bc[4096];
    if (rank_ == root)
        for (size_t i = 0; i < sizeof bc; i++)
            bc[i] = probe_byte(seed, i);
    else
        memset(bc, 0xee, sizeof bc);
    if (boot_broadcast(bc, sizeof bc, root) != 0)
        probe_fail(4, "boot_broadcast failed");
    for (size_t i = 0; i < sizeof bc; i++)
        if (bc[i] != probe_byte(seed, i))
            probe_fail(5, "broadcast: wrong byte");

    /* barrier: nobody leaves before everybody arrived */
    char path[4096];
    if (dir) {
        snprintf(path, sizeof path, "%s/pre.%" PRIu32, dir, rank_);
        int fd = open(path, O_CREAT | O_WRONLY, 0644);
        if (fd < 0)
            probe_fail(5, "cannot create barrier file");
        close(fd);
    }
    if (boot_barrier() != 0)
        probe_fail(4, "boot_barrier failed");
    if (dir)
        for (uint32_t r = 0; r < size_; r++) {
            snprintf(path, sizeof path, "%s/pre.%" PRIu32, dir, r);
            if (access(path, F_OK) != 0)
                probe_fail(5, "left the barrier before every rank entered it");
        }
    printf("probe-ok: rank %" PRIu32 " exchange %zu+%zu bytes, broadcast from %" PRIu32 ", barrier\n",
           rank_, sizeof me, big, root);

    for (int l = 0; l < spew; l++) {      /* output volume through the tree */
        char pay[61];
        memset(pay, 'a' + (int)((rank_ + (uint32_t)l) % 26), 60);
        pay[60] = '\0';
        printf("probe-spew: rank %" PRIu32 " line %d %s\n", rank_, l, pay);
    }
    if (rank_ == kill_rank) {
        printf("probe-kill: rank %" PRIu32 " pid %" PRIu32 " raises SIGKILL\n", rank_, me.pid);
        raise(SIGKILL);
    }
    if (rank_ == die_rank) {
        printf("probe-die: rank %" PRIu32 " _exit(%d)\n", rank_, die_code);
        _exit(die_code);
    }
    if (rank_ == abort_rank) {
        printf("probe-abort: rank %" PRIu32 " boot_abort(%d)\n", rank_, abort_code);
        boot_abort(abort_code, "probe abort");
    }
    for (int s = 0; s < sleep_s; s++)
        sleep(1);

    int code = rank_ == exit_rank ? exit_code : 0;
    if (boot_barrier() != 0)
        probe_fail(4, "final boot_barrier failed");
    printf("probe-done: rank %" PRIu32 " exit %d\n", rank_, code);
    fflush(stdout);
    boot_fini(code);
    _exit(code);
}
