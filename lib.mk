# Conduit libraries: filled in by the core (issue 3) and tcp (issue 5) work.
lib_LTLIBRARIES =
pkgconfig_DATA =
pkgconfigdir = $(libdir)/pkgconfig
CLEANFILES =

# ---- udp conduit: libgasnet-udp-{seq,parsync,par}.a (core + amudp + live + boot + tools + common) ----
# conduit/udp.c lists the core's transport (amudp) and extension
# (extended-ref), core/gasnetc_ident.c the ident strings naming the conduit
# (GASNET_CONDUIT_UDP) and mode; the rest comes from the
# per-directory convenience libraries. Static only (LT_INIT disable-shared).
lib_LTLIBRARIES += libgasnet-udp-seq.la libgasnet-udp-parsync.la libgasnet-udp-par.la
GASNET_CONDUIT_CPPFLAGS = -I$(top_builddir) -I$(top_srcdir)/include -I$(top_builddir)/include -I$(top_srcdir)/common -I$(top_srcdir)/core
GASNET_CONDUIT_LIBS = live/liblive.la bootstrap/libboot.la common/libgasneti.la $(ZLIB_LIBS) $(DL_LIBS) $(PTHREAD_LIBS)

libgasnet_udp_seq_la_SOURCES = conduit/udp.c core/gasnetc_ident.c
libgasnet_udp_seq_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_CONDUIT_UDP -DGASNET_SEQ
libgasnet_udp_seq_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_udp_seq_la_LIBADD = extended-ref/libgasnete-seq.la core/libgasnetc-seq.la amudp/libamudp-seq.la amshm/libamshm-seq.la tools/libgasnett-seq.la $(GASNET_CONDUIT_LIBS)
libgasnet_udp_parsync_la_SOURCES = conduit/udp.c core/gasnetc_ident.c
libgasnet_udp_parsync_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_CONDUIT_UDP -DGASNET_PARSYNC
libgasnet_udp_parsync_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_udp_parsync_la_LIBADD = extended-ref/libgasnete-parsync.la core/libgasnetc-parsync.la amudp/libamudp-parsync.la amshm/libamshm-parsync.la tools/libgasnett-parsync.la $(GASNET_CONDUIT_LIBS)
libgasnet_udp_par_la_SOURCES = conduit/udp.c core/gasnetc_ident.c
libgasnet_udp_par_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_CONDUIT_UDP -DGASNET_PAR -DGASNETC_THREADS=1
libgasnet_udp_par_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_udp_par_la_LIBADD = extended-ref/libgasnete-par.la core/libgasnetc-par.la amudp/libamudp-par.la amshm/libamshm-par.la tools/libgasnett-par.la $(GASNET_CONDUIT_LIBS)

# ---- tcp conduit: libgasnet-tcp-{seq,parsync,par}.a (core + amtcp + boot + tools + common) ----
# The same core, assembled with amtcp instead of amudp (conduit/tcp.c). Mirrors the udp libraries line for line.
lib_LTLIBRARIES += libgasnet-tcp-seq.la libgasnet-tcp-parsync.la libgasnet-tcp-par.la
libgasnet_tcp_seq_la_SOURCES = conduit/tcp.c core/gasnetc_ident.c
libgasnet_tcp_seq_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_CONDUIT_TCP -DGASNET_SEQ
libgasnet_tcp_seq_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_tcp_seq_la_LIBADD = extended-ref/libgasnete-seq.la core/libgasnetc-seq.la amtcp/libamtcp-seq.la amshm/libamshm-seq.la tools/libgasnett-seq.la $(GASNET_CONDUIT_LIBS)
libgasnet_tcp_parsync_la_SOURCES = conduit/tcp.c core/gasnetc_ident.c
libgasnet_tcp_parsync_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_CONDUIT_TCP -DGASNET_PARSYNC
libgasnet_tcp_parsync_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_tcp_parsync_la_LIBADD = extended-ref/libgasnete-parsync.la core/libgasnetc-parsync.la amtcp/libamtcp-parsync.la amshm/libamshm-parsync.la tools/libgasnett-parsync.la $(GASNET_CONDUIT_LIBS)
libgasnet_tcp_par_la_SOURCES = conduit/tcp.c core/gasnetc_ident.c
libgasnet_tcp_par_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_CONDUIT_TCP -DGASNET_PAR -DGASNETC_THREADS=1
libgasnet_tcp_par_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_tcp_par_la_LIBADD = extended-ref/libgasnete-par.la core/libgasnetc-par.la amtcp/libamtcp-par.la amshm/libamshm-par.la tools/libgasnett-par.la $(GASNET_CONDUIT_LIBS)

# Client fragments, all made from one template each in contrib/ by the two
# rules below (a conduit only lists its files here):
#   $(libdir)/pkgconfig/gasnet-<conduit>-<mode>.pc        pkg-config
#   $(includedir)/<conduit>-conduit/<conduit>-<mode>.mak  make include
#   $(includedir)/<conduit>-conduit/gasnet_core.h         marks the conduit
# A static C library: everything it needs is in Libs / GASNET_LIBS (no C++
# linker needed). docs/clients.md describes them for clients.
udpconduitdir = $(includedir)/udp-conduit
tcpconduitdir = $(includedir)/tcp-conduit
pkgconfig_DATA += contrib/gasnet-udp-seq.pc contrib/gasnet-udp-parsync.pc contrib/gasnet-udp-par.pc
pkgconfig_DATA += contrib/gasnet-tcp-seq.pc contrib/gasnet-tcp-parsync.pc contrib/gasnet-tcp-par.pc
udpconduit_DATA = contrib/udp-seq.mak contrib/udp-parsync.mak contrib/udp-par.mak
tcpconduit_DATA = contrib/tcp-seq.mak contrib/tcp-parsync.mak contrib/tcp-par.mak
udpconduit_HEADERS = contrib/gasnet_core.h
tcpconduit_HEADERS = contrib/gasnet_core.h
CLEANFILES += contrib/gasnet-udp-seq.pc contrib/gasnet-udp-parsync.pc contrib/gasnet-udp-par.pc \
	contrib/gasnet-tcp-seq.pc contrib/gasnet-tcp-parsync.pc contrib/gasnet-tcp-par.pc \
	$(udpconduit_DATA) $(tcpconduit_DATA)
EXTRA_DIST += contrib/gasnet-conduit.pc.in contrib/gasnet-conduit.mak.in contrib/gen-fragment.sh docs/clients.md

# The configured values, handed to contrib/gen-fragment.sh. -lm: clients
# call sqrt and friends and count on GASNet's libraries to bring it.
GASNET_GEN_COMMON = version='$(PACKAGE_VERSION)' cc='$(CC)' cxx='$(CXX)' \
	cflags='$(CFLAGS)' cxxflags='$(CXXFLAGS)' ldflags='$(LDFLAGS)' \
	pthread_cflags='$(PTHREAD_CFLAGS)' deplibs='$(ZLIB_LIBS) $(DL_LIBS) $(PTHREAD_LIBS) $(LIBM)' \
	$(SHELL) $(srcdir)/contrib/gen-fragment.sh
GASNET_GEN_FRAGMENT = prefix='$(prefix)' exec_prefix='$(exec_prefix)' libdir='$(libdir)' \
	includedir='$(includedir)' $(GASNET_GEN_COMMON)
# The fragments are remade on every make (FORCE) but replaced only when their
# text changes: a prefix given at install time (`make install prefix=/opt/x`)
# then lands in the installed files too, and a plain make puts the configured
# one back.
GASNET_GEN_REPLACE = if cmp -s $@.tmp $@; then rm -f $@.tmp; else echo "  GEN      $@"; mv $@.tmp $@; fi
contrib/gasnet-%.pc: $(srcdir)/contrib/gasnet-conduit.pc.in $(srcdir)/contrib/gen-fragment.sh FORCE
	@mkdir -p contrib && \
	$(GASNET_GEN_FRAGMENT) $(srcdir)/contrib/gasnet-conduit.pc.in '$*' '$${prefix}' > $@.tmp && $(GASNET_GEN_REPLACE)
contrib/%.mak: $(srcdir)/contrib/gasnet-conduit.mak.in $(srcdir)/contrib/gen-fragment.sh FORCE
	@mkdir -p contrib && \
	$(GASNET_GEN_FRAGMENT) $(srcdir)/contrib/gasnet-conduit.mak.in '$*' '$$(GASNET_PREFIX)' > $@.tmp && $(GASNET_GEN_REPLACE)
FORCE:
.PHONY: FORCE

# ---- the build tree as a GASNet build directory (docs/clients.md, "Building
# UPC++ and other GASNet-EX clients"): after `make`, client build scripts
# given this directory find what they find in a Berkeley GASNet build
# directory, every path pointing into this tree:
#   gasnet_config.h                     (a copy of include/gasnet_config.h)
#   <conduit>-conduit/<conduit>-<mode>.mak, gasnet-<conduit>-<mode>.pc
#                                       (absolute paths in the .mak files)
#   <conduit>-conduit/gasnet_core.h     (as installed)
#   <conduit>-conduit/Makefile          (`make seq` etc.: builds this tree)
#   gasnet_tools-seq.mak, gasnet_tools-par.mak
GASNET_TREE_SRCINC = $$(test '$(abs_top_srcdir)' = '$(abs_top_builddir)' || echo '$(abs_top_srcdir)/include')
GASNET_GEN_TREE = buildtree=yes prefix='$(abs_top_builddir)' exec_prefix='$(abs_top_builddir)' \
	libdir='$(abs_top_builddir)/.libs' includedir='$(abs_top_builddir)/include' \
	srcinclude="$(GASNET_TREE_SRCINC)" $(GASNET_GEN_COMMON)
GASNET_TREE_CONDUITS = udp tcp
# Writes stdin to $$1 only if it changed (no remake of clients for nothing).
GASNET_TREE_PUT = put() { cat > "$$1.tmp" && if cmp -s "$$1.tmp" "$$1"; then rm -f "$$1.tmp"; \
	else echo "  GEN      $$1"; mv "$$1.tmp" "$$1"; fi; }
all-local: gasnet-build-tree
gasnet-build-tree: $(lib_LTLIBRARIES) $(srcdir)/contrib/gasnet-conduit.mak.in \
		$(srcdir)/contrib/gasnet-conduit.pc.in $(srcdir)/contrib/gasnet_tools.mak.in \
		$(srcdir)/contrib/gasnet_core.h $(srcdir)/contrib/gen-fragment.sh FORCE
	@$(GASNET_TREE_PUT); set -e; \
	put gasnet_config.h < include/gasnet_config.h; \
	for c in $(GASNET_TREE_CONDUITS); do \
	  mkdir -p $$c-conduit; \
	  put $$c-conduit/gasnet_core.h < $(srcdir)/contrib/gasnet_core.h; \
	  for m in seq parsync par; do \
	    $(GASNET_GEN_TREE) $(srcdir)/contrib/gasnet-conduit.mak.in $$c-$$m '$(abs_top_builddir)' | put $$c-conduit/$$c-$$m.mak; \
	    $(GASNET_GEN_TREE) $(srcdir)/contrib/gasnet-conduit.pc.in $$c-$$m '$${prefix}' | put $$c-conduit/gasnet-$$c-$$m.pc; \
	  done; \
	  printf '%s\n' "# $$c-conduit/Makefile: made by the top Makefile of this build tree." \
	    "# \`make seq\` (parsync, par, all) here builds the whole tree, every library." \
	    "all seq parsync par: ; \$$(MAKE) -C '$(abs_top_builddir)' all" \
	    ".PHONY: all seq parsync par" | put $$c-conduit/Makefile; \
	done; \
	for m in seq par; do \
	  case $$m in seq) T=SINGLE P='';; par) T=SAFE P='$(PTHREAD_LIBS)';; esac; \
	  inc='$(abs_top_builddir)/include'; si="$(GASNET_TREE_SRCINC)"; test -z "$$si" || inc="$$inc -I$$si"; \
	  sed -e 's|%prefix%|$(abs_top_builddir)|' -e 's|%VERSION%|$(PACKAGE_VERSION)|' \
	      -e 's|%mak_libdir%|$(abs_top_builddir)/tools/.libs|' -e "s|%mak_includedir%|$$inc|" \
	      -e "s|%mode%|$$m|g" -e "s|%THREAD%|$$T|g" -e "s|%PTHREAD%|$$P|g" -e 's|%CC%|$(CC)|' \
	      -e 's|%CXX%|$(CXX)|' -e 's|%CFLAGS%|$(CFLAGS)|' \
	      $(srcdir)/contrib/gasnet_tools.mak.in | put gasnet_tools-$$m.mak; \
	done
clean-local: gasnet-build-tree-clean
gasnet-build-tree-clean:
	rm -rf gasnet_config.h gasnet_tools-seq.mak gasnet_tools-par.mak $(GASNET_TREE_CONDUITS:=-conduit)
.PHONY: gasnet-build-tree gasnet-build-tree-clean

# ---- mix: a conduit for the tests only (not installed): UDP and TCP at
# once, each serving half of the peers (conduit/mix.c), to test the route
# table with mixed entries and two transports in the one wait.
noinst_LTLIBRARIES = libgasnet-mix-seq.la libgasnet-mix-par.la
libgasnet_mix_seq_la_SOURCES = conduit/mix.c core/gasnetc_ident.c
libgasnet_mix_seq_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_SEQ
libgasnet_mix_seq_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_mix_seq_la_LIBADD = extended-ref/libgasnete-seq.la core/libgasnetc-seq.la amudp/libamudp-seq.la amtcp/libamtcp-seq.la amshm/libamshm-seq.la tools/libgasnett-seq.la $(GASNET_CONDUIT_LIBS)
libgasnet_mix_par_la_SOURCES = conduit/mix.c core/gasnetc_ident.c
libgasnet_mix_par_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_PAR -DGASNETC_THREADS=1
libgasnet_mix_par_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_mix_par_la_LIBADD = extended-ref/libgasnete-par.la core/libgasnetc-par.la amudp/libamudp-par.la amtcp/libamtcp-par.la amshm/libamshm-par.la tools/libgasnett-par.la $(GASNET_CONDUIT_LIBS)
