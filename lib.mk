# Conduit libraries: filled in by the core (issue 3) and tcp (issue 5) work.
lib_LTLIBRARIES =
pkgconfig_DATA =
pkgconfigdir = $(libdir)/pkgconfig
CLEANFILES =

# ---- udp conduit: libgasnet-udp-{seq,parsync,par}.a (core + amudp + boot + tools) ----
# core/conduit_udp.c hands the core &amudp_ops; the rest comes from the
# per-directory convenience libraries. Static only (LT_INIT disable-shared).
lib_LTLIBRARIES += libgasnet-udp-seq.la libgasnet-udp-parsync.la libgasnet-udp-par.la
GASNET_CONDUIT_CPPFLAGS = -I$(top_srcdir)/include -I$(top_builddir)/include -I$(top_srcdir)/core
GASNET_CONDUIT_LIBS = spawner/libboot.la $(LIBUV_LIBS) $(ZLIB_LIBS) $(PTHREAD_LIBS)

libgasnet_udp_seq_la_SOURCES = core/conduit_udp.c
libgasnet_udp_seq_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_SEQ
libgasnet_udp_seq_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_udp_seq_la_LIBADD = extended-ref/libgasnete-seq.la core/libgasnetc-seq.la amudp/libamudp-seq.la tools/libgasnett-seq.la $(GASNET_CONDUIT_LIBS)
libgasnet_udp_parsync_la_SOURCES = core/conduit_udp.c
libgasnet_udp_parsync_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_PARSYNC
libgasnet_udp_parsync_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_udp_parsync_la_LIBADD = extended-ref/libgasnete-parsync.la core/libgasnetc-parsync.la amudp/libamudp-parsync.la tools/libgasnett-parsync.la $(GASNET_CONDUIT_LIBS)
libgasnet_udp_par_la_SOURCES = core/conduit_udp.c
libgasnet_udp_par_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_PAR -DGASNETC_THREADS=1
libgasnet_udp_par_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_udp_par_la_LIBADD = extended-ref/libgasnete-par.la core/libgasnetc-par.la amudp/libamudp-par.la tools/libgasnett-par.la $(GASNET_CONDUIT_LIBS)

# ---- tcp conduit: libgasnet-tcp-{seq,parsync,par}.a (core + amtcp + boot + tools) ----
# The same core, assembled with amtcp instead of amudp: core/conduit_tcp.c
# hands the core &amtcp_ops. Mirrors the udp libraries line for line.
lib_LTLIBRARIES += libgasnet-tcp-seq.la libgasnet-tcp-parsync.la libgasnet-tcp-par.la
libgasnet_tcp_seq_la_SOURCES = core/conduit_tcp.c
libgasnet_tcp_seq_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_SEQ
libgasnet_tcp_seq_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_tcp_seq_la_LIBADD = extended-ref/libgasnete-seq.la core/libgasnetc-seq.la amtcp/libamtcp-seq.la tools/libgasnett-seq.la $(GASNET_CONDUIT_LIBS)
libgasnet_tcp_parsync_la_SOURCES = core/conduit_tcp.c
libgasnet_tcp_parsync_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_PARSYNC
libgasnet_tcp_parsync_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_tcp_parsync_la_LIBADD = extended-ref/libgasnete-parsync.la core/libgasnetc-parsync.la amtcp/libamtcp-parsync.la tools/libgasnett-parsync.la $(GASNET_CONDUIT_LIBS)
libgasnet_tcp_par_la_SOURCES = core/conduit_tcp.c
libgasnet_tcp_par_la_CPPFLAGS = $(GASNET_CONDUIT_CPPFLAGS) -DGASNET_PAR -DGASNETC_THREADS=1
libgasnet_tcp_par_la_CFLAGS = $(WARN_CFLAGS)
libgasnet_tcp_par_la_LIBADD = extended-ref/libgasnete-par.la core/libgasnetc-par.la amtcp/libamtcp-par.la tools/libgasnett-par.la $(GASNET_CONDUIT_LIBS)

# pkg-config files gasnet-<conduit>-<mode>.pc, all made from one template
# in contrib/ by the rule below (a conduit only lists its files here).
# A static library: everything it needs is in Libs (no C++ linker needed).
pkgconfig_DATA += contrib/gasnet-udp-seq.pc contrib/gasnet-udp-parsync.pc contrib/gasnet-udp-par.pc
CLEANFILES += contrib/gasnet-udp-seq.pc contrib/gasnet-udp-parsync.pc contrib/gasnet-udp-par.pc
EXTRA_DIST += contrib/gasnet-conduit.pc.in
pkgconfig_DATA += contrib/gasnet-tcp-seq.pc contrib/gasnet-tcp-parsync.pc contrib/gasnet-tcp-par.pc
CLEANFILES += contrib/gasnet-tcp-seq.pc contrib/gasnet-tcp-parsync.pc contrib/gasnet-tcp-par.pc

contrib/gasnet-%.pc: $(srcdir)/contrib/gasnet-conduit.pc.in Makefile
	$(AM_V_GEN)mkdir -p contrib && name='$*'; conduit=$${name%-*}; mode=$${name##*-}; \
	case $$mode in seq) M=SEQ;; parsync) M=PARSYNC;; par) M=PAR;; *) exit 1;; esac; \
	sed -e 's|%prefix%|$(prefix)|' -e 's|%exec_prefix%|$(exec_prefix)|' \
	    -e 's|%libdir%|$(libdir)|' -e 's|%includedir%|$(includedir)|' \
	    -e 's|%VERSION%|$(PACKAGE_VERSION)|' -e "s|%CONDUIT%|$$conduit|g" \
	    -e "s|%mode%|$$mode|g" -e "s|%MODE%|$$M|g" \
	    -e 's|%DEPLIBS%|$(LIBUV_LIBS) $(ZLIB_LIBS) $(PTHREAD_LIBS)|' \
	    -e 's|%PTHREAD_CFLAGS%|$(PTHREAD_CFLAGS)|' \
	    $(srcdir)/contrib/gasnet-conduit.pc.in > $@.tmp && mv $@.tmp $@
