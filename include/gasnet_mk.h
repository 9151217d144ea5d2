/*
 * gasnet_mk.h - memory kinds ([PROPOSED] in the GASNet-EX description,
 * "Memory Kinds"). Only host memory exists here: no GASNET_HAVE_MK_CLASS_*
 * macro is defined; gex_MK_Create makes a kind of GEX_MK_CLASS_HOST (good
 * for gex_Segment_Create, like the predefined GEX_MK_HOST) and returns
 * GASNET_ERR_BAD_ARG for every device class.
 */
#ifndef GASNET_MK_H
#define GASNET_MK_H

#include "gasnetex.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  GEX_MK_CLASS_HOST,
  GEX_MK_CLASS_CUDA_UVA,
  GEX_MK_CLASS_HIP,
  GEX_MK_CLASS_ZE
} gex_MK_Class_t;

typedef struct {
  uint64_t gex_flags; /* must be 0 */
  gex_MK_Class_t gex_class;
  union {
    struct { int gex_CUdevice; } gex_class_cuda_uva;
    struct { int gex_hipDevice; } gex_class_hip;
    struct { void *gex_zeDevice; void *gex_zeContext; uint32_t gex_zeMemoryOrdinal; } gex_class_ze;
  } gex_args;
} gex_MK_Create_args_t;

/* A host kind; GASNET_ERR_BAD_ARG, with a message naming the class, for a
 * device class (no device memory), or for a NULL pointer or non-zero flags. */
extern int gex_MK_Create(gex_MK_t *memkind_p, gex_Client_t client, const gex_MK_Create_args_t *args,
                         gex_Flags_t flags);
/* A kind of gex_MK_Create (fatal otherwise, GEX_MK_HOST included). */
extern void gex_MK_Destroy(gex_MK_t memkind, gex_Flags_t flags);

#ifdef __cplusplus
}
#endif

#endif /* GASNET_MK_H */
