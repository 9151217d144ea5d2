/*
 * spawn.h - internals of the gasnetrun launcher (not installed).
 *
 * Every gasnetrun process is a *node* of a tree: the launcher is the root; a
 * relay (`gasnetrun --relay`, started by ssh, or `--relay-ticket F` started by
 * a GASNET_CSPAWN_CMD template) is an inner node. A node forks its host's
 * ranks, starts its child relays ("kids"), accepts their authenticated TCP
 * connections, combines collectives over its subtree, and passes output and
 * exit events up. The root alone applies the job's exit policy (spawn_job.c).
 *
 * Files: gasnetrun.c (options, modes), spawn_cfg.c (node configuration on
 * the wire, tunables), spawn_node.c (the node: connections, handshake,
 * events), spawn_coll.c (collectives), spawn_proc.c (fork/exec of ranks and
 * relays, reaping), spawn_job.c (root: output lines, exit policy, teardown).
 */
#ifndef SPAWN_H
#define SPAWN_H

#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

#include "gasneti_time.h"   /* gasneti_now_ms: the launcher's clock */
#include "spawn_proto.h"

#define SPAWN_NAME "gasnetrun"

/* GASNET_CSPAWN_CMD's value inside a Slurm allocation when none is given:
 * one relay per allocated node (%W of them), each running a block of ranks.
 * -K: Slurm ends the step if a relay dies; no PMI, the relays need none. */
#define SPAWN_SRUN_CMD "srun --nodes=%W --ntasks=%W --ntasks-per-node=1 --kill-on-bad-exit=1 --mpi=none %C"

/* One host of a subtree and the ranks it runs (consecutive). */
typedef struct spawn_host {
  char *name;
  uint32_t lo, n;
} spawn_host_t;

/* What a node needs to know; the root builds it, relays get it in WELCOME. */
typedef struct spawn_cfg {
  uint32_t size;             /* ranks in the job */
  uint32_t lo, n;            /* this node's own ranks */
  uint32_t sub_lo, sub_n;    /* ranks of this node's whole subtree */
  uint32_t degree;           /* most relays a node starts (GASNET_SSH_OUT_DEGREE) */
  uint32_t self_host;        /* 1: hosts[0] is this node's own host */
  uint32_t nhosts;
  spawn_host_t *hosts;       /* this node's host (if self_host) then its subtree */
  uint32_t connect_ms;       /* deadline for a started relay to connect back */
  uint32_t cspawn;           /* 1: root whose kids are GASNET_CSPAWN_CMD workers */
  uint32_t workers;          /* cspawn: how many (each runs a block of ranks) */
  char *cwd;                 /* where ranks run */
  char *relay_path;          /* this program, on every host */
  uint32_t argc, nexports, nenv;
  char **argv;               /* program and arguments */
  char **exports;            /* -E names */
  char **env;                /* launcher's environment snapshot, "K=V" */
} spawn_cfg_t;

/*
 * Every tunable of the launcher (docs/launcher.md), read in one place,
 * spawn_opts_read, from the launcher's environment snapshot: relays see the
 * launcher's values, not their host's.
 */
typedef struct spawn_opts {
  char mode;                 /* GASNET_SPAWNFN: 'L', 'S', 'C' or 0 (auto) */
  const char *ssh_servers;   /* GASNET_SSH_SERVERS, NULL */
  const char *ssh_nodefile;  /* GASNET_SSH_NODEFILE, NULL */
  const char *ssh_cmd;       /* GASNET_SSH_CMD, "ssh" */
  const char *ssh_options;   /* GASNET_SSH_OPTIONS, "" */
  const char *remote_path;   /* GASNET_SSH_REMOTE_PATH, NULL: launcher's cwd */
  uint32_t out_degree;       /* GASNET_SSH_OUT_DEGREE, 32 */
  uint32_t connect_s;        /* GASNET_CONNECT_TIMEOUT, 30 s */
  const char *masterip;      /* GASNET_MASTERIP, NULL: automatic */
  const char *cspawn_cmd;    /* GASNET_CSPAWN_CMD, NULL */
  const char *cspawn_servers;/* GASNET_CSPAWN_SERVERS (%M), NULL */
  const char *keydir;        /* GASNET_CSPAWN_KEYDIR, NULL: $HOME, else /tmp */
  uint32_t max_ppn;          /* GASNET_MAX_PPN, 0: no limit */
  uint64_t exit_grace_ms;    /* GASNET_EXIT_GRACE, 2 s */
  uint64_t kill_grace_ms;    /* GASNET_KILL_GRACE, 2 s */
  uint64_t relay_timeout_ms; /* GASNET_RELAY_TIMEOUT, 30 s; 0: never */
} spawn_opts_t;

/* 0, or -EINVAL with a one-line reason in why. */
int spawn_opts_read(const spawn_cfg_t *c, spawn_opts_t *o, char *why, size_t whylen);

void spawn_cfg_put(spawn_buf_t *b, const spawn_cfg_t *c);
int spawn_cfg_get(spawn_rd_t *r, spawn_cfg_t *c);  /* 0, or -EPROTO and nothing to free */
void spawn_cfg_free(spawn_cfg_t *c);
const char *spawn_cfg_getenv(const spawn_cfg_t *c, const char *name);

/* A reference-counted outgoing frame, written to one or many connections. */
typedef struct spawn_msg {
  int refs;
  size_t len;
  uint8_t data[];
} spawn_msg_t;

typedef struct spawn_node spawn_node_t;

enum spawn_role { SPAWN_CONN_NEW, SPAWN_CONN_RANK, SPAWN_CONN_KID, SPAWN_CONN_PARENT };

typedef struct spawn_conn {
  uv_tcp_t tcp;
  spawn_node_t *node;
  int role;                  /* enum spawn_role */
  void *owner;               /* spawn_rank_t / spawn_kid_t for RANK / KID */
  uint8_t snonce[SPAWN_NONCE_LEN];
  spawn_buf_t in;            /* bytes received, not yet a whole frame */
  char peer[64];             /* "addr:port" for log lines */
  int closing;
  uint64_t born_ms;          /* accepted at */
  struct spawn_conn *next, *prev; /* node's list of unauthenticated ones */
} spawn_conn_t;

/* One of this node's own ranks: a forked process. */
typedef struct spawn_rank {
  uint32_t rank;
  pid_t pid;
  int alive;                 /* not reaped yet */
  int status;                /* wait status once reaped */
  uint64_t reaped_ms;
  spawn_conn_t *conn;        /* while connected */
  int connected, finished, reported;
  uint32_t coll_gen;         /* == node coll.gen once it contributed */
  uv_pipe_t *out[2];         /* stdout, stderr; NULL once closed */
} spawn_rank_t;

/* A child relay (ssh) or a GASNET_CSPAWN_CMD worker. */
typedef struct spawn_kid {
  uint32_t id;
  char *host;                /* NULL for a worker until it connects */
  uint32_t lo, n;            /* ranks of its subtree */
  uint32_t h0, nh;           /* its hosts: node cfg hosts[h0 .. h0+nh) */
  pid_t pid;                 /* ssh process; 0 for a worker */
  int alive, status;
  int stdin_fd;              /* write end of ssh's stdin: our channel */
  uint64_t started_ms, ended_ms;
  uint64_t heard_ms;         /* last frame from it (PONG at least every NODE_PING_MS) */
  spawn_conn_t *conn;
  int connected, done, lost, complete;
  uint32_t coll_gen;
} spawn_kid_t;

struct spawn_node {
  uv_loop_t *loop;
  spawn_cfg_t *cfg;
  spawn_opts_t opt;          /* tunables, from cfg's env snapshot */
  int is_root;
  uint8_t secret[SPAWN_SECRET_LEN];
  char addr[64];             /* what our ranks connect to */
  char host[256];            /* this host's name for messages */
  uv_tcp_t listener;
  uint16_t port;
  spawn_rank_t *ranks;       /* cfg->n own ranks */
  spawn_kid_t *kids;
  uint32_t nkids, kids_connected;
  pid_t cspawn_pid;          /* the GASNET_CSPAWN_CMD shell; 0 once reaped */
  uint64_t cspawn_idle_ms;   /* when every worker was over (it may still exit) */
  char *keyfile;             /* cspawn ticket file, removed once all joined */
  spawn_conn_t *parent;      /* relays: connection to the parent node */
  spawn_conn_t *unauth;      /* accepted, not yet authenticated */
  uv_poll_t stdin_poll;      /* relays started by ssh: EOF = parent gone */
  int watch_stdin;
  int ticket_fd;             /* where our ranks find their ticket pipe */
  int *keep_fds, nkeep;      /* cspawn workers: descriptors the launcher gave
                                us, passed on to our ranks (PMI_FD, ...) */
  uv_signal_t sigchld, sig[3];
  uv_timer_t tick;
  char *exec_path;           /* resolved program for own ranks */
  char **rank_env;           /* environment for own ranks */
  spawn_buf_t env_body;      /* serialized env snapshot for rank WELCOMEs */
  int finished;              /* done: everything below is gone */
  uint64_t leave_ms;         /* relay: when DONE was written (0: not yet);
                                it leaves when its parent closes, or
                                NODE_LEAVE_MS later */
  int last_sig;              /* last signal sent below, for late relays */
  uint64_t sig_ms;           /* when the first signal went below: the job ends */
  uint64_t kill_ms;          /* when SIGKILL went below */
  uint64_t tick_ms;          /* the last tick: a late one means we were blocked */
  uint64_t ping_ms;          /* the last PING to the kids */
  uint32_t height;           /* levels of relays below this node */
  struct {                   /* rejected connections, logged once per interval */
    uint32_t count;
    uint64_t since_ms, logged_ms;
    char last[160];
  } rejected;
  int out_paused;            /* relays: rank output unread, parent is slow */
  struct {
    int active;
    uint32_t op, len, root, arrived, gen;
    uint8_t *buf;            /* subtree's data: sub_n*len (exchange) or len */
  } coll;
};

/* spawn_node.c */
int spawn_node_start(spawn_node_t *node);   /* listen, spawn, watch */
int spawn_node_adopt_parent(spawn_node_t *node, int fd);
int spawn_node_watch_pipe(spawn_node_t *node, spawn_rank_t *r, int i, int fd);
void spawn_node_signal(spawn_node_t *node, int sig); /* every rank below */
void spawn_node_check(spawn_node_t *node);
void spawn_node_give_up(spawn_node_t *node);  /* every relay not done: killed, named */
void spawn_conn_send(spawn_conn_t *c, spawn_msg_t *m);   /* NULL c: nothing */
void spawn_conn_send_frame(spawn_conn_t *c, uint16_t type, uint32_t a, uint32_t b,
                           const void *p, size_t len);
spawn_msg_t *spawn_msg_frame(uint16_t type, uint32_t a, uint32_t b, const void *p, size_t len);
void spawn_msg_unref(spawn_msg_t *m);
void spawn_node_fail(spawn_node_t *node, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void spawn_node_log_flush(spawn_node_t *node);  /* the rejected-connections line, if any */

/* spawn_coll.c: a COLL frame from one of our ranks (first = its rank,
 * count 1) or kids (its subtree's range); `gen` is the sender's marker. */
void spawn_coll_from(spawn_node_t *node, const char *who, uint32_t *gen, uint32_t first,
                     uint32_t count, const spawn_hdr_t *h, const uint8_t *p, size_t len);
const char *spawn_coll_name(uint32_t op);

/* spawn_proc.c */
int spawn_proc_ranks(spawn_node_t *node);   /* fork/exec own ranks */
/* Can this host start n more ranks (process ids, RLIMIT_NPROC counting the
 * user's running tasks, RLIMIT_NOFILE for 3 per rank)? 0, or -1 and why. */
int spawn_proc_limits(uint32_t n, char *why, size_t len);
int spawn_proc_kid(spawn_node_t *node, spawn_kid_t *k);  /* ssh one relay */
int spawn_proc_cspawn(spawn_node_t *node);  /* run GASNET_CSPAWN_CMD */
void spawn_proc_reap(spawn_node_t *node);   /* SIGCHLD: waitpid all */
char *spawn_proc_which(const char *prog, const char *path);  /* malloc'd or NULL */
int spawn_addr_toward(const char *host, char *out, size_t len);
char *spawn_describe_status(int status, char *buf, size_t len);
char **spawn_split_words(const char *s, int *n);

/* spawn_job.c (root only) */
int spawn_job_init(spawn_node_t *node, int verbose);
void spawn_job_output(uint32_t rank, uint32_t stream, const uint8_t *p, size_t len);
void spawn_job_fini(uint32_t rank, int code);
void spawn_job_abort(uint32_t rank, int code, const char *why);
void spawn_job_exit(uint32_t rank, uint32_t how, uint32_t value, uint32_t flags);
void spawn_job_fail(const char *msg);
void spawn_job_notice(const char *msg);  /* printed whatever the phase */
void spawn_job_signal(int sig);
void spawn_job_done(void) __attribute__((noreturn));
void spawn_job_host_of(uint32_t rank, char *out, size_t len);
int spawn_job_dying(void);   /* teardown under way: losses are expected */

#endif /* SPAWN_H */
