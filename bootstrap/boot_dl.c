/*
 * boot_dl.c - load a launcher's client library at run time (PMI2, PMIx).
 *
 * The PMI back ends open their library only when a launcher asks for them,
 * so a client links no PMI library and a plain or gasnetrun job loads none.
 * Under Open MPI the program's libmpi has usually loaded libpmix already:
 * dlopen then returns that same copy, and both use one PMIx client.
 */
#include "boot_internal.h"

#include <dlfcn.h>
#include <errno.h>

int boot_dl_load(const char *backend, const char *lib, const char *pkg,
                 const char *const *syms, void **fns)
{
  void *h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
  if (!h) return boot_err(backend, -ENOENT, "cannot load %s (install the Debian package %s): %s",
                          lib, pkg, dlerror());
  for (int i = 0; syms[i]; i++)
    if (!(fns[i] = dlsym(h, syms[i])))
      return boot_err(backend, -ENOENT, "%s has no %s", lib, syms[i]);
  return 0;
}
