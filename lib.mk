# Conduit libraries: filled in by the core (issue 3) and tcp (issue 5) work.
lib_LTLIBRARIES =
pkgconfig_DATA =
pkgconfigdir = $(libdir)/pkgconfig
CLEANFILES =

# ---- udp conduit: libgasnet-udp-{seq,parsync,par}.a (core + amudp + boot + tools + common) ----
# conduit/udp.c lists the core's transport (amudp) and extension
# (extended-ref); the rest comes from the
# per-directory convenience libraries. Static only (LT_INIT disable-shared).
lib_LTLIBRARIES += libgasnet-udp-seq.la libgasnet-udp-parsync.la libgasnet-udp-par.la
GASNET_CONDUIT_CPPFLAGS = -I$(top_srcdir)/include -I$(top_builddir)/include -I$(top_srcdir)/common -I$(top_srcdir)/core
GASNET_CONDUIT_LIBS = spawner/libboot.la common/libgasneti.la $(ZLIB_LIBS) $(DL_LIBS) $(PTHREAD_LIBS)

libgasnet_udp_seq_la_SOURCES = conduit/udp.c
libgasnet_udp_seq_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_SEQ
libgasnet_udp_seq_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_udp_seq_la_LIBADD = extended-ref/libgasnete-seq.la core/libgasnetc-seq.la amudp/libamudp-seq.la amshm/libamshm-seq.la tools/libgasnett-seq.la $(GASNET_CONDUIT_LIBS)
libgasnet_udp_parsync_la_SOURCES = conduit/udp.c
libgasnet_udp_parsync_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_PARSYNC
libgasnet_udp_parsync_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_udp_parsync_la_LIBADD = extended-ref/libgasnete-parsync.la core/libgasnetc-parsync.la amudp/libamudp-parsync.la amshm/libamshm-parsync.la tools/libgasnett-parsync.la $(GASNET_CONDUIT_LIBS)
libgasnet_udp_par_la_SOURCES = conduit/udp.c
libgasnet_udp_par_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_PAR -DGASNETC_THREADS=1
libgasnet_udp_par_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_udp_par_la_LIBADD = extended-ref/libgasnete-par.la core/libgasnetc-par.la amudp/libamudp-par.la amshm/libamshm-par.la tools/libgasnett-par.la $(GASNET_CONDUIT_LIBS)

# ---- tcp conduit: libgasnet-tcp-{seq,parsync,par}.a (core + amtcp + boot + tools + common) ----
# The same core, assembled with amtcp instead of amudp (conduit/tcp.c). Mirrors the udp libraries line for line.
lib_LTLIBRARIES += libgasnet-tcp-seq.la libgasnet-tcp-parsync.la libgasnet-tcp-par.la
libgasnet_tcp_seq_la_SOURCES = conduit/tcp.c
libgasnet_tcp_seq_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_SEQ
libgasnet_tcp_seq_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_tcp_seq_la_LIBADD = extended-ref/libgasnete-seq.la core/libgasnetc-seq.la amtcp/libamtcp-seq.la amshm/libamshm-seq.la tools/libgasnett-seq.la $(GASNET_CONDUIT_LIBS)
libgasnet_tcp_parsync_la_SOURCES = conduit/tcp.c
libgasnet_tcp_parsync_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_PARSYNC
libgasnet_tcp_parsync_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_tcp_parsync_la_LIBADD = extended-ref/libgasnete-parsync.la core/libgasnetc-parsync.la amtcp/libamtcp-parsync.la amshm/libamshm-parsync.la tools/libgasnett-parsync.la $(GASNET_CONDUIT_LIBS)
libgasnet_tcp_par_la_SOURCES = conduit/tcp.c
libgasnet_tcp_par_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_PAR -DGASNETC_THREADS=1
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

# The configured values, handed to contrib/gen-fragment.sh.
GASNET_GEN_FRAGMENT = prefix='$(prefix)' exec_prefix='$(exec_prefix)' libdir='$(libdir)' \
	includedir='$(includedir)' version='$(PACKAGE_VERSION)' cc='$(CC)' cxx='$(CXX)' \
	cflags='$(CFLAGS)' cxxflags='$(CXXFLAGS)' ldflags='$(LDFLAGS)' \
	pthread_cflags='$(PTHREAD_CFLAGS)' deplibs='$(ZLIB_LIBS) $(DL_LIBS) $(PTHREAD_LIBS)' \
	$(SHELL) $(srcdir)/contrib/gen-fragment.sh
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

# ---- mix: a conduit for the tests only (not installed): UDP and TCP at
# once, each serving half of the peers (conduit/mix.c), to test the route
# table with mixed entries and two transports in the one wait.
noinst_LTLIBRARIES = libgasnet-mix-seq.la libgasnet-mix-par.la
libgasnet_mix_seq_la_SOURCES = conduit/mix.c
libgasnet_mix_seq_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_SEQ
libgasnet_mix_seq_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_mix_seq_la_LIBADD = extended-ref/libgasnete-seq.la core/libgasnetc-seq.la amudp/libamudp-seq.la amtcp/libamtcp-seq.la amshm/libamshm-seq.la tools/libgasnett-seq.la $(GASNET_CONDUIT_LIBS)
libgasnet_mix_par_la_SOURCES = conduit/mix.c
libgasnet_mix_par_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_PAR -DGASNETC_THREADS=1
libgasnet_mix_par_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_mix_par_la_LIBADD = extended-ref/libgasnete-par.la core/libgasnetc-par.la amudp/libamudp-par.la amtcp/libamtcp-par.la amshm/libamshm-par.la tools/libgasnett-par.la $(GASNET_CONDUIT_LIBS)
