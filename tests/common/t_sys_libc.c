/* t_sys_libc.c - t_sys.c's checks again, through libc's calls (the
 * fallback of gasneti_sys.h where there is no direct implementation). */
#define GASNETI_SYS_LIBC 1
#define T_SYS_NAME t_sys_libc
#include "t_sys.c"
