/*
 * gasnete_coll_ops.h - what the collectives engine (gasnete_coll.c) and
 * its algorithms (gasnete_coll_ops.c) share: an operation in flight and
 * the calls an algorithm makes. Not installed.
 */
#ifndef GASNETE_COLL_OPS_H
#define GASNETE_COLL_OPS_H

#include "gasnete_coll_internal.h"

/* A team's collectives state (gasnetc_team_t.coll). */
typedef struct gasnete_cteam {
  uint32_t seq;      /* collectives started on the team by this member */
  int inflight;      /* of them, not complete here */
  gex_Rank_t *at;    /* [size] the members by neighbourhood: at[position] = rank */
  gex_Rank_t *pos;   /* [size] its inverse */
  gex_Rank_t ngroups; /* neighbourhoods among the members: positions */
  gex_Rank_t *gstart; /* [ngroups + 1] gstart[g] .. gstart[g+1]-1 are group g */
  gex_Rank_t *group;  /* [size] the group of each position */
} gasnete_cteam_t;

/* Stages: a message's stage tells which step of its operation it belongs
 * to; with the sender's rank it names one slot of the mailbox. */
enum {
  GASNETE_CSTAGE_IN = 0,     /* entry barrier (GASNETE_COLL_SYNC_IN) */
  GASNETE_CSTAGE_OUT = 1,    /* exit barrier (GASNETE_COLL_SYNC_OUT) */
  GASNETE_CSTAGE_DATA = 2,   /* the algorithm's first data step */
  GASNETE_CSTAGE_DATA2 = 3,  /* its second (gather_all's broadcast, a reduction's result) */
  GASNETE_CSTAGE_FOLD = 4,   /* reduce-to-all: the extra members' contributions */
  GASNETE_CSTAGE_UNFOLD = 5, /* reduce-to-all: their results */
  GASNETE_CSTAGE_HGATHER = 6,  /* reduce-to-all by host: to the neighbourhood's leader */
  GASNETE_CSTAGE_HRELEASE = 7, /* reduce-to-all by host: the leader's result */
  GASNETE_CSTAGE_ROUND = 8,  /* reduce-to-all: round k is stage ROUND + k */
};
enum { GASNETE_CPHASE_IN, GASNETE_CPHASE_DATA, GASNETE_CPHASE_OUT, GASNETE_CPHASE_DONE };

typedef struct gasnete_coll_op {
  const char *fname;         /* the client's call, for messages */
  gasnetc_team_t *tm;
  uint32_t seq;              /* its number on the team */
  int sync;                  /* GASNETE_COLL_SYNC_* */
  int phase;                 /* GASNETE_CPHASE_* */
  int sround, ssent;         /* IN / OUT barrier: round, sent in it */
  int (*kick)(struct gasnete_coll_op *); /* the data steps: 1 when complete */
  void (*fini)(struct gasnete_coll_op *); /* NULL, or frees what the algorithm held */
  int done;                  /* complete (release store; the owner's event reads it) */
  struct gasnete_coll_op *next; /* in flight */
  /* the algorithm's arguments and state */
  gex_Rank_t root;
  void *dst;
  const void *src;
  size_t nbytes;             /* of one block / of the reduced vector */
  int step, sent;
  gex_Rank_t next_rank;      /* the next member to hear from */
  gex_Rank_t dist;           /* the tree distance / round in progress */
  char *acc;                 /* a reduction's running result */
  gex_DT_t dt;
  size_t dt_sz, dt_cnt;
  gex_OP_t opcode;
  gex_Coll_ReduceFn_t user_op;
  const void *user_cdata;
  int ordered;               /* combine in rank order (USER_NC), not by neighbourhood */
} gasnete_coll_op_t;

/* GASNET_COLL_BY_HOST (default 1): reduce-to-all combines at a leader per
 * neighbourhood (gasnete_coll_ops.c); 0: every member in the doubling. */
extern int gasnete_coll_by_host;

/* A new operation of team tm, numbered; kick runs its data steps. */
gasnete_coll_op_t *gasnete_coll_op_new(const char *fname, gasnetc_team_t *tm, int sync,
                                       int (*kick)(gasnete_coll_op_t *));
/* Run it as far as it goes; its event (GEX_EVENT_INVALID if complete). */
gex_Event_t gasnete_coll_op_start(gasnete_coll_op_t *op);
/* Send nbytes of buf to member `to` as op's message of this stage. */
void gasnete_coll_send(gasnete_coll_op_t *op, uint32_t stage, gex_Rank_t to, const void *buf,
                       size_t nbytes);
/* The message of this stage from member `from`, whole, once: a buffer of
 * nbytes the caller frees (not NULL even for 0 bytes), or NULL while it
 * has not all come. Fatal if it is not nbytes long. */
char *gasnete_coll_take(gasnete_coll_op_t *op, uint32_t stage, gex_Rank_t from, size_t nbytes);

#endif /* GASNETE_COLL_OPS_H */
