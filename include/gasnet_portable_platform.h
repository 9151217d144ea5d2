/*
 * gasnet_portable_platform.h - uniform names for the compiler, OS and CPU
 * (tools spec 1.20, "Portable platform defines"), so that a client writes
 *   #if PLATFORM_COMPILER_GNU && PLATFORM_OS_LINUX && PLATFORM_ARCH_X86_64
 * whatever the compiler predefines. gasnet_tools.h (and so gasnet.h and
 * gasnetex.h) include it; it may also be included alone, from C or C++.
 * Reference: docs/tools.md "Platform identification".
 *
 * Every name is 1 when true and undefined otherwise, except the values
 * listed as such (FAMILYNAME tokens, FAMILYID, VERSION numbers and strings).
 * Names a platform does not have stay undefined, so `#if PLATFORM_X` is
 * always valid. If another copy of the Berkeley-style header was included
 * first (it defines _PORTABLE_PLATFORM_H), its definitions stand and this
 * file adds nothing.
 */
#ifndef GASNET_PORTABLE_PLATFORM_H
#define GASNET_PORTABLE_PLATFORM_H
#if !defined(_PORTABLE_PLATFORM_H)
#define _PORTABLE_PLATFORM_H

/* ---- compiler ------------------------------------------------------------
 * PLATFORM_COMPILER_<FAMILY>, with _C or _CXX for the language; FAMILYNAME
 * (a bare token: stringify it), FAMILYID (a small integer, the ids below),
 * VERSION (PLATFORM_COMPILER_VERSION_INT(major, minor, patch)), VERSION_STR,
 * IDSTR ("|COMPILER_FAMILY:GNU|COMPILER_VERSION:13.2.0|COMPILER_FAMILYID:1|"). */
#define PLATFORM_COMPILER_FAMILYID_UNKNOWN 0
#define PLATFORM_COMPILER_FAMILYID_GNU 1
#define PLATFORM_COMPILER_FAMILYID_CLANG 2
#define PLATFORM_COMPILER_FAMILYID_INTEL 3
#define PLATFORM_COMPILER_FAMILYID_NVHPC 4
#define PLATFORM_COMPILER_VERSION_INT(maj, min, pat) \
  (((maj) << 24) | ((min) << 16) | (pat))

#define PLATFORM__STR_HELPER(x) #x
#define PLATFORM__STR(x) PLATFORM__STR_HELPER(x)

/* Compilers that also define __GNUC__ come first: they are not GNU. */
#if defined(__INTEL_LLVM_COMPILER) || defined(__INTEL_COMPILER)
#define PLATFORM_COMPILER_INTEL 1
#define PLATFORM_COMPILER_FAMILYNAME INTEL
#define PLATFORM_COMPILER_FAMILYID PLATFORM_COMPILER_FAMILYID_INTEL
#if defined(__INTEL_LLVM_COMPILER)
#define PLATFORM_COMPILER_VERSION \
  PLATFORM_COMPILER_VERSION_INT(__INTEL_LLVM_COMPILER / 10000, __INTEL_LLVM_COMPILER / 100 % 100, __INTEL_LLVM_COMPILER % 100)
#else
#define PLATFORM_COMPILER_VERSION \
  PLATFORM_COMPILER_VERSION_INT(__INTEL_COMPILER / 100, __INTEL_COMPILER / 10 % 10, __INTEL_COMPILER % 10)
#endif
#elif defined(__NVCOMPILER)
#define PLATFORM_COMPILER_NVHPC 1
#define PLATFORM_COMPILER_FAMILYNAME NVHPC
#define PLATFORM_COMPILER_FAMILYID PLATFORM_COMPILER_FAMILYID_NVHPC
#define PLATFORM_COMPILER_VERSION \
  PLATFORM_COMPILER_VERSION_INT(__NVCOMPILER_MAJOR__, __NVCOMPILER_MINOR__, __NVCOMPILER_PATCHLEVEL__)
#elif defined(__clang__)
#define PLATFORM_COMPILER_CLANG 1
#define PLATFORM_COMPILER_FAMILYNAME CLANG
#define PLATFORM_COMPILER_FAMILYID PLATFORM_COMPILER_FAMILYID_CLANG
#define PLATFORM_COMPILER_VERSION \
  PLATFORM_COMPILER_VERSION_INT(__clang_major__, __clang_minor__, __clang_patchlevel__)
#define PLATFORM__VERSION_TRIPLE __clang_major__.__clang_minor__.__clang_patchlevel__
#elif defined(__GNUC__)
#define PLATFORM_COMPILER_GNU 1
#define PLATFORM_COMPILER_FAMILYNAME GNU
#define PLATFORM_COMPILER_FAMILYID PLATFORM_COMPILER_FAMILYID_GNU
#define PLATFORM_COMPILER_VERSION \
  PLATFORM_COMPILER_VERSION_INT(__GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__)
#define PLATFORM__VERSION_TRIPLE __GNUC__.__GNUC_MINOR__.__GNUC_PATCHLEVEL__
#else
#define PLATFORM_COMPILER_UNKNOWN 1
#define PLATFORM_COMPILER_FAMILYNAME UNKNOWN
#define PLATFORM_COMPILER_FAMILYID PLATFORM_COMPILER_FAMILYID_UNKNOWN
#define PLATFORM_COMPILER_VERSION 0
#endif

/* The same family, by language: PLATFORM_COMPILER_GNU_C, ..._GNU_CXX. */
#ifdef __cplusplus
#define PLATFORM_COMPILER_CXX_LANGLVL __cplusplus
#if PLATFORM_COMPILER_GNU
#define PLATFORM_COMPILER_GNU_CXX 1
#elif PLATFORM_COMPILER_CLANG
#define PLATFORM_COMPILER_CLANG_CXX 1
#elif PLATFORM_COMPILER_INTEL
#define PLATFORM_COMPILER_INTEL_CXX 1
#elif PLATFORM_COMPILER_NVHPC
#define PLATFORM_COMPILER_NVHPC_CXX 1
#endif
#else
#if defined(__STDC_VERSION__)
#define PLATFORM_COMPILER_C_LANGLVL __STDC_VERSION__
#else
#define PLATFORM_COMPILER_C_LANGLVL 199000L
#endif
#if PLATFORM_COMPILER_GNU
#define PLATFORM_COMPILER_GNU_C 1
#elif PLATFORM_COMPILER_CLANG
#define PLATFORM_COMPILER_CLANG_C 1
#elif PLATFORM_COMPILER_INTEL
#define PLATFORM_COMPILER_INTEL_C 1
#elif PLATFORM_COMPILER_NVHPC
#define PLATFORM_COMPILER_NVHPC_C 1
#endif
#endif

/* A string: the compiler's own __VERSION__ when it has one. */
#if defined(__VERSION__)
#define PLATFORM_COMPILER_VERSION_STR __VERSION__
#else
#define PLATFORM_COMPILER_VERSION_STR PLATFORM__STR(PLATFORM_COMPILER_VERSION)
#endif
#if defined(PLATFORM__VERSION_TRIPLE)
#define PLATFORM__IDSTR_VERSION PLATFORM__STR(PLATFORM__VERSION_TRIPLE)
#else
#define PLATFORM__IDSTR_VERSION PLATFORM__STR(PLATFORM_COMPILER_VERSION)
#endif
#define PLATFORM_COMPILER_IDSTR                                                \
  "|COMPILER_FAMILY:" PLATFORM__STR(PLATFORM_COMPILER_FAMILYNAME)              \
  "|COMPILER_VERSION:" PLATFORM__IDSTR_VERSION                                 \
  "|COMPILER_FAMILYID:" PLATFORM__STR(PLATFORM_COMPILER_FAMILYID) "|"

/* Version tests against the running compiler's (usable in #if). */
#define PLATFORM_COMPILER_VERSION_GT(maj, min, pat) \
  (PLATFORM_COMPILER_VERSION > PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_GE(maj, min, pat) \
  (PLATFORM_COMPILER_VERSION >= PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_EQ(maj, min, pat) \
  (PLATFORM_COMPILER_VERSION == PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_LE(maj, min, pat) \
  (PLATFORM_COMPILER_VERSION <= PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_LT(maj, min, pat) \
  (PLATFORM_COMPILER_VERSION < PLATFORM_COMPILER_VERSION_INT(maj, min, pat))

/* ---- operating system: PLATFORM_OS_<NAME>, PLATFORM_OS_FAMILYNAME ------- */
#if defined(__linux__)
#define PLATFORM_OS_LINUX 1
#define PLATFORM_OS_FAMILYNAME LINUX
#elif defined(__APPLE__) && defined(__MACH__)
#define PLATFORM_OS_DARWIN 1
#define PLATFORM_OS_FAMILYNAME DARWIN
#elif defined(__FreeBSD__)
#define PLATFORM_OS_FREEBSD 1
#define PLATFORM_OS_FAMILYNAME FREEBSD
#elif defined(__NetBSD__)
#define PLATFORM_OS_NETBSD 1
#define PLATFORM_OS_FAMILYNAME NETBSD
#elif defined(__OpenBSD__)
#define PLATFORM_OS_OPENBSD 1
#define PLATFORM_OS_FAMILYNAME OPENBSD
#elif defined(__sun)
#define PLATFORM_OS_SOLARIS 1
#define PLATFORM_OS_FAMILYNAME SOLARIS
#elif defined(__CYGWIN__)
#define PLATFORM_OS_CYGWIN 1
#define PLATFORM_OS_FAMILYNAME CYGWIN
#elif defined(_AIX)
#define PLATFORM_OS_AIX 1
#define PLATFORM_OS_FAMILYNAME AIX
#else
#define PLATFORM_OS_UNKNOWN 1
#define PLATFORM_OS_FAMILYNAME UNKNOWN
#endif

/* ---- architecture: PLATFORM_ARCH_<CPU>, _FAMILYNAME, 32/64, endianness -- */
#if defined(__x86_64__) || defined(__amd64__)
#define PLATFORM_ARCH_X86_64 1
#define PLATFORM_ARCH_FAMILYNAME X86_64
#elif defined(__i386__)
#define PLATFORM_ARCH_X86 1
#define PLATFORM_ARCH_FAMILYNAME X86
#elif defined(__aarch64__)
#define PLATFORM_ARCH_AARCH64 1
#define PLATFORM_ARCH_FAMILYNAME AARCH64
#elif defined(__arm__)
#define PLATFORM_ARCH_ARM 1
#define PLATFORM_ARCH_FAMILYNAME ARM
#elif defined(__powerpc64__) || defined(__ppc64__) || defined(__powerpc__) || defined(__ppc__)
#define PLATFORM_ARCH_POWERPC 1
#define PLATFORM_ARCH_FAMILYNAME POWERPC
#elif defined(__riscv)
#define PLATFORM_ARCH_RISCV 1
#define PLATFORM_ARCH_FAMILYNAME RISCV
#elif defined(__mips__)
#define PLATFORM_ARCH_MIPS 1
#define PLATFORM_ARCH_FAMILYNAME MIPS
#elif defined(__sparc__) || defined(__sparc)
#define PLATFORM_ARCH_SPARC 1
#define PLATFORM_ARCH_FAMILYNAME SPARC
#elif defined(__s390__)
#define PLATFORM_ARCH_S390 1
#define PLATFORM_ARCH_FAMILYNAME S390
#else
#define PLATFORM_ARCH_UNKNOWN 1
#define PLATFORM_ARCH_FAMILYNAME UNKNOWN
#endif

/* Exactly one of _32/_64 (the pointer width). */
#if defined(__SIZEOF_POINTER__) ? __SIZEOF_POINTER__ == 8 : (defined(__LP64__) || defined(_LP64))
#define PLATFORM_ARCH_64 1
#else
#define PLATFORM_ARCH_32 1
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PLATFORM_ARCH_BIG_ENDIAN 1
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PLATFORM_ARCH_LITTLE_ENDIAN 1
#endif

#endif /* !_PORTABLE_PLATFORM_H */
#endif /* GASNET_PORTABLE_PLATFORM_H */
