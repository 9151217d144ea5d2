/*
 * portals3.h - the Portals 3.2 message passing interface (Sandia,
 * ../shared/spec/portals-3.2.lyx.txt) over this project's transports: UDP
 * or TCP between hosts, shared memory between the processes of one host,
 * started by gasnetrun (or mpiexec/srun through PMI).
 *
 * Every type, constant, return code and function of the spec, with the
 * spec's names. Names the spec's text lost (lines shorter than ~19
 * characters) were rebuilt from the spec's own prose and the Portals 3.3
 * naming; docs/portals.md lists each such choice and every inconsistency
 * of the spec decided here. Two calls beyond the spec tell a process
 * started by our launchers its place in the job: PtlGetRank, PtlGetRankId.
 *
 * Link with libportals3-udp.a or libportals3-tcp.a (pkg-config
 * portals3-udp / portals3-tcp); not together with a GASNet library.
 */
#ifndef PORTALS3_H
#define PORTALS3_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- base types (spec "Base Types") ------------------------------------ */
typedef uint64_t ptl_size_t;       /* unsigned 64-bit: sizes and offsets */
typedef uint32_t ptl_pt_index_t;   /* Portal table index */
typedef uint32_t ptl_ac_index_t;   /* access control table index */
typedef uint64_t ptl_match_bits_t; /* match (and ignore) bits */
typedef uint64_t ptl_hdr_data_t;   /* 64 bits of out-of-band user data */
typedef uint32_t ptl_seq_t;        /* event sequence numbers */
typedef int32_t ptl_sr_index_t;    /* status register index */
typedef int64_t ptl_sr_value_t;    /* status register value: signed, >= 32 bits */
typedef int ptl_interface_t;       /* network interface identifier */
typedef uint32_t ptl_nid_t;        /* node id */
typedef uint32_t ptl_pid_t;        /* process id */
typedef uint32_t ptl_uid_t;        /* user id */
typedef int ptl_ni_fail_t;         /* network interface specific failure */

/* ---- handles: the interface and the object are encoded in each --------- */
typedef uint64_t ptl_handle_any_t;
typedef ptl_handle_any_t ptl_handle_ni_t;
typedef ptl_handle_any_t ptl_handle_eq_t;
typedef ptl_handle_any_t ptl_handle_md_t;
typedef ptl_handle_any_t ptl_handle_me_t;

#define PTL_EQ_NONE ((ptl_handle_eq_t)0)          /* no event queue */
#define PTL_INVALID_HANDLE ((ptl_handle_any_t)0)  /* never a valid handle (3.3) */

#define PTL_IFACE_DEFAULT ((ptl_interface_t)0) /* the default interface */

/* ---- process identification -------------------------------------------- */
typedef struct {
  ptl_nid_t nid; /* node id */
  ptl_pid_t pid; /* process id */
} ptl_process_id_t;

#define PTL_NID_ANY ((ptl_nid_t)0xffffffffu) /* matches any node id */
#define PTL_PID_ANY ((ptl_pid_t)0xffffffffu) /* matches any process id */
#define PTL_UID_ANY ((ptl_uid_t)0xffffffffu) /* matches any user id */
#define PTL_ID_ANY 0xffffffffu               /* either field of a ptl_process_id_t */
#define PTL_PT_INDEX_ANY ((ptl_pt_index_t)0xffffffffu) /* any Portal index (PtlACEntry) */

/* ---- status registers --------------------------------------------------- */
#define PTL_SR_DROP_COUNT 0      /* dropped requests (the one the spec requires) */
#define PTL_SR_MALFORMED_COUNT 1 /* ours: messages dropped as malformed */
#define PTL_SR_SLEEP_TIMEOUT_COUNT 2 /* ours: progress-thread sleeps that ran to their 100 ms bound */

/* ---- return codes (spec table "Function Return Codes") ----------------- */
#define PTL_OK 0
#define PTL_AC_INV_INDEX 1  /* invalid access control table index */
#define PTL_EQ_DROPPED 2    /* at least one event has been dropped */
#define PTL_EQ_EMPTY 3      /* no events available in an event queue */
#define PTL_FAIL 4          /* error during initialization or cleanup */
#define PTL_ILL_MD 5        /* illegal memory descriptor values */
#define PTL_INIT_DUP 6      /* duplicate initialization of an interface */
#define PTL_INIT_INV 7      /* initialization of an invalid interface */
#define PTL_INUSE 8         /* the ME already has an MD */
#define PTL_INV_ASIZE 9     /* invalid access control table size */
#define PTL_INV_EQ 10       /* invalid event queue handle */
#define PTL_INV_HANDLE 11   /* invalid handle */
#define PTL_INV_MD 12       /* invalid memory descriptor handle */
#define PTL_INV_ME 13       /* invalid match entry handle */
#define PTL_INV_NI 14       /* invalid network interface handle */
#define PTL_INV_PROC 15     /* invalid process identifier */
#define PTL_INV_PTINDEX 16  /* invalid Portal table index */
#define PTL_INV_REG 17      /* invalid status register */
#define PTL_INV_SR_INDX 18  /* invalid status register index */
#define PTL_ML_TOOLONG 19   /* match list too long */
#define PTL_MD_INUSE 20     /* MD has pending operations */
#define PTL_NOINIT 21       /* the API has not been initialized */
#define PTL_NOSPACE 22      /* insufficient memory */
#define PTL_NOUPDATE 23     /* no update was performed */
#define PTL_PT_FULL 24      /* Portal table is full */
#define PTL_SEGV 25         /* addressing violation */
#define PTL_MAX_ERRNO 25
/* PtlACEntry's text names the same error PTL_PT_INV_INDEX: one value. */
#define PTL_PT_INV_INDEX PTL_INV_PTINDEX

/* ---- network interface limits ------------------------------------------ */
typedef struct {
  int max_match_entries;           /* match entries allocated at any time */
  int max_mem_descriptors;         /* memory descriptors allocated at any time */
  int max_event_queues;            /* event queues allocated at any time */
  ptl_ac_index_t max_atable_index; /* valid AC indexes: 0..max_atable_index */
  ptl_pt_index_t max_ptable_index; /* valid Portal indexes: 0..max_ptable_index */
} ptl_ni_limits_t;

/* ---- match entries ------------------------------------------------------ */
typedef enum { PTL_RETAIN, PTL_UNLINK } ptl_unlink_t;
typedef enum { PTL_INS_BEFORE, PTL_INS_AFTER } ptl_ins_pos_t;

/* ---- memory descriptors -------------------------------------------------- */
typedef struct {
  void *start;
  ptl_size_t length;
  int threshold;         /* operations left; PTL_MD_THRESH_INF: no bound */
  ptl_size_t max_offset; /* the spec's struct says unsigned int: widened */
  unsigned int options;  /* PTL_MD_* below, or'ed */
  void *user_ptr;
  ptl_handle_eq_t eventq; /* PTL_EQ_NONE: operations are not logged */
} ptl_md_t;

#define PTL_MD_THRESH_INF (-1)
#define PTL_MD_OP_PUT 0x01        /* respond to put operations */
#define PTL_MD_OP_GET 0x02        /* respond to get operations */
#define PTL_MD_MANAGE_REMOTE 0x04 /* the request gives the offset */
#define PTL_MD_TRUNCATE 0x08      /* shorten a request to the room left */
#define PTL_MD_ACK_DISABLE 0x10   /* never acknowledge puts */

/* ---- events ------------------------------------------------------------- */
typedef enum {
  PTL_EVENT_GET_START, PTL_EVENT_GET_END, PTL_EVENT_GET_FAIL,
  PTL_EVENT_PUT_START, PTL_EVENT_PUT_END, PTL_EVENT_PUT_FAIL,
  PTL_EVENT_REPLY_START, PTL_EVENT_REPLY_END, PTL_EVENT_REPLY_FAIL,
  PTL_EVENT_SEND_START, PTL_EVENT_SEND_END, PTL_EVENT_SEND_FAIL,
  PTL_EVENT_ACK,   /* an acknowledgement arrived (the function text's one kind) */
  PTL_EVENT_UNLINK,
  /* The summary table's three acknowledgement kinds: an acknowledgement is
   * one message, logged once as PTL_EVENT_ACK (= ACK_END); START and FAIL
   * are never logged. */
  PTL_EVENT_ACK_START,
  PTL_EVENT_ACK_END = PTL_EVENT_ACK,
  PTL_EVENT_ACK_FAIL = PTL_EVENT_ACK_START + 1
} ptl_event_kind_t;

#define PTL_NI_OK 0   /* ni_fail_type: no failure */
#define PTL_NI_FAIL 1 /* ni_fail_type: the interface failed the operation */

typedef struct {
  ptl_event_kind_t type;
  ptl_process_id_t initiator;
  ptl_uid_t uid;
  ptl_pt_index_t portal;
  ptl_match_bits_t match_bits;
  ptl_size_t rlength;
  ptl_size_t mlength;
  ptl_size_t offset;
  ptl_handle_md_t md_handle;
  ptl_md_t mem_desc;
  ptl_hdr_data_t hdr_data;
  ptl_seq_t link;
  ptl_ni_fail_t ni_fail_type;
  volatile ptl_seq_t sequence; /* written last */
} ptl_event_t;

/* ---- data movement -------------------------------------------------------- */
typedef enum { PTL_ACK_REQ, PTL_NOACK_REQ } ptl_ack_req_t;

/* ---- the 24 functions ----------------------------------------------------- */
int PtlInit(int *max_interfaces);
void PtlFini(void);

int PtlNIInit(ptl_interface_t interface, ptl_pid_t pid, ptl_ni_limits_t *desired,
              ptl_ni_limits_t *actual, ptl_handle_ni_t *handle);
int PtlNIFini(ptl_handle_ni_t interface);
int PtlNIStatus(ptl_handle_ni_t interface, ptl_sr_index_t status_register,
                ptl_sr_value_t *status);
int PtlNIDist(ptl_handle_ni_t interface, ptl_process_id_t process, unsigned long *distance);
int PtlNIHandle(ptl_handle_any_t handle, ptl_handle_ni_t *interface);

int PtlGetUid(ptl_handle_ni_t ni_handle, ptl_uid_t *uid);
int PtlGetId(ptl_handle_ni_t ni_handle, ptl_process_id_t *id);

int PtlMEAttach(ptl_handle_ni_t interface, ptl_pt_index_t index, ptl_process_id_t matchid,
                ptl_match_bits_t match_bits, ptl_match_bits_t ignorebits, ptl_unlink_t unlink,
                ptl_ins_pos_t position, ptl_handle_me_t *handle);
int PtlMEAttachAny(ptl_handle_ni_t interface, ptl_pt_index_t *index, ptl_process_id_t matchid,
                   ptl_match_bits_t match_bits, ptl_match_bits_t ignorebits, ptl_unlink_t unlink,
                   ptl_handle_me_t *handle);
int PtlMEInsert(ptl_handle_me_t current, ptl_process_id_t matchid, ptl_match_bits_t match_bits,
                ptl_match_bits_t ignorebits, ptl_ins_pos_t position, ptl_handle_me_t *handle);
int PtlMEUnlink(ptl_handle_me_t entry);

int PtlMDAttach(ptl_handle_me_t match, ptl_md_t mem_desc, ptl_unlink_t unlink_op,
                ptl_unlink_t unlink_nofit, ptl_handle_md_t *handle);
int PtlMDBind(ptl_handle_ni_t interface, ptl_md_t mem_desc, ptl_handle_md_t *handle);
int PtlMDUnlink(ptl_handle_md_t mem_desc);
int PtlMDUpdate(ptl_handle_md_t mem_desc, ptl_md_t *old_md, ptl_md_t *new_md,
                ptl_handle_eq_t testq);

int PtlEQAlloc(ptl_handle_ni_t interface, ptl_size_t count, ptl_handle_eq_t *handle);
int PtlEQFree(ptl_handle_eq_t eventq);
int PtlEQGet(ptl_handle_eq_t eventq, ptl_event_t *event);
int PtlEQWait(ptl_handle_eq_t eventq, ptl_event_t *event);

int PtlACEntry(ptl_handle_ni_t interface, ptl_ac_index_t index, ptl_process_id_t matchid,
               ptl_uid_t user, ptl_pt_index_t portal);

int PtlPut(ptl_handle_md_t mem_desc, ptl_ack_req_t ack_req, ptl_process_id_t target,
           ptl_pt_index_t portal, ptl_ac_index_t cookie, ptl_match_bits_t match_bits,
           ptl_size_t offset, ptl_hdr_data_t hdr_data);
int PtlGet(ptl_handle_md_t mem_desc, ptl_process_id_t target, ptl_pt_index_t portal,
           ptl_ac_index_t cookie, ptl_match_bits_t match_bits, ptl_size_t offset);

/* ---- the runtime's part (beyond the spec): a process started by gasnetrun
 * (or through PMI) learns its place in the job and its peers' ids.
 * PTL_OK, PTL_INV_NI, or PTL_INV_PROC (rank out of range). */
int PtlGetRank(ptl_handle_ni_t ni, unsigned *rank, unsigned *size);
int PtlGetRankId(ptl_handle_ni_t ni, unsigned rank, ptl_process_id_t *id);

/* A printable name for a return code ("PTL_OK", ...); never NULL. */
const char *PtlErrorStr(int code);
/* A printable name for an event kind ("PTL_EVENT_PUT_END", ...). */
const char *PtlEventKindStr(ptl_event_kind_t kind);

#ifdef __cplusplus
}
#endif
#endif /* PORTALS3_H */
