/*
 * t_misuse.c CASE - one misuse of the core API per run (spec 2.3: an error
 * message naming the call and the problem, then the whole job ends with a
 * non-zero code). Node 0 commits the misuse against the last node (itself
 * in a one-node job); the others poll until the job is torn down. The script
 * t-misuse.sh greps for each message.
 */
#include "t_util.h"
#include <unistd.h>
#include <time.h>

static const char *mcase;
static gasnet_hsl_t hsl = GASNET_HSL_INITIALIZER;

static void rep_handler(gasnet_token_t token) {
  if (strcmp(mcase, "reply-from-reply") == 0) gasnet_AMReplyShort0(token, 129);
}
static void req_handler(gasnet_token_t token) {
  if (strcmp(mcase, "request-in-handler") == 0) gasnet_AMRequestShort0(0, 128);
  if (strcmp(mcase, "hsl-held") == 0) { gasnet_hsl_lock(&hsl); return; }
  gasnet_AMReplyShort0(token, 129);
  if (strcmp(mcase, "second-reply") == 0) gasnet_AMReplyShort0(token, 129);
}

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  mcase = argc > 1 ? argv[1] : "none";
  gasnet_node_t me = gasnet_mynode(), last = gasnet_nodes() - 1;
  if (strcmp(mcase, "before-attach") == 0 && me == 0) {
    printf("node 0: calling gasnet_AMRequestShort0 before gasnet_attach\n"); fflush(stdout);
    gasnet_AMRequestShort0(last, 128);
  }
  gasnet_handlerentry_t table[] = { { 128, (void (*)())req_handler }, { 129, (void (*)())rep_handler },
                                    T_BARRIER_HANDLERS, { 0, NULL } };
  int ntable = 4;
  if (strcmp(mcase, "reserved-index") == 0) { table[4].index = 5; table[4].fnptr = (void (*)())rep_handler; ntable = 5; }
  /* A client that ignores a failed attach (segsize not a page multiple) must
   * be told, at its next call, that attach failed and why. */
  int ignore_failure = !strncmp(mcase, "attach-fails-", 13);
  int heapoffset = !strcmp(mcase, "attach-fails-heapoffset");   /* 2^62: absurd */
  uintptr_t segsize = ignore_failure && !heapoffset ? 1024 * 1024 + 1 : 1024 * 1024;
  int rc = gasnet_attach(table, ntable, segsize, heapoffset ? (uintptr_t)1 << 62 : 0);
  if (ignore_failure) {
    printf("node %u: gasnet_attach returned %s; going on regardless\n", (unsigned)me,
           gasnet_ErrorName(rc));
    fflush(stdout);
    gasnet_seginfo_t si;
    if (!strcmp(mcase, "attach-fails-seginfo") || heapoffset) gasnet_getSegmentInfo(&si, 1);
    if (!strcmp(mcase, "attach-fails-am")) gasnet_AMRequestShort0(last, 128);
    if (!strcmp(mcase, "attach-fails-put")) gasnet_put(last, &si, &si, sizeof si);
    if (!strcmp(mcase, "attach-fails-barrier")) gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    printf("node %u: the call after a failed attach returned\n", (unsigned)me);
    gasnet_exit(0);
  }
  if (rc != GASNET_OK) {
    printf("node %u: gasnet_attach returned %s\n", (unsigned)me, gasnet_ErrorName(rc));
    fflush(stdout);
    gasnet_exit(rc == GASNET_ERR_BAD_ARG ? 9 : 10);
  }
  gasnet_seginfo_t *seg = calloc(last + 1, sizeof *seg);
  T_CHECK(gasnet_getSegmentInfo(seg, (int)last + 1));
  static char buf[2 * 1024 * 1024];
  t_barrier();
  if (me == 0) {
    printf("node 0: misuse '%s' against node %u\n", mcase, (unsigned)last); fflush(stdout);
    if (!strcmp(mcase, "unregistered"))
      gasnet_AMRequestShort0(last, 222);
    else if (!strcmp(mcase, "long-outside"))
      gasnet_AMRequestLong3(last, 128, buf, 100, (char *)seg[last].addr + seg[last].size - 10, 1, 2, 3);
    else if (!strcmp(mcase, "medium-too-big"))
      gasnet_AMRequestMedium0(last, 128, buf, gasnet_AMMaxMedium() + 1);
    else if (!strcmp(mcase, "long-too-big"))
      gasnet_AMRequestLong0(last, 128, buf, gasnet_AMMaxLongRequest() + 1, seg[last].addr);
    else if (!strcmp(mcase, "second-reply") || !strcmp(mcase, "reply-from-reply") ||
             !strcmp(mcase, "request-in-handler") || !strcmp(mcase, "hsl-held"))
      gasnet_AMRequestShort0(last, 128);
    else if (!strcmp(mcase, "reply-outside-handler"))
      gasnet_AMReplyShort0((gasnet_token_t)buf, 129);
    else if (!strcmp(mcase, "request-in-nis")) {
      gasnet_hold_interrupts();
      gasnet_AMRequestShort0(last, 128);
    }
  }
  /* Wait for the job to be torn down (bounded: 20 s). */
  time_t end = time(NULL) + 20;
  while (time(NULL) < end) gasnet_AMPoll();
  printf("node %u: still alive after 20 s: misuse '%s' was not caught\n", (unsigned)me, mcase);
  gasnet_exit(0);
}
