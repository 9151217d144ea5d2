# Conduit libraries: filled in by the core (issue 3) and tcp (issue 5) work.
lib_LTLIBRARIES =
pkgconfig_DATA =
pkgconfigdir = $(libdir)/pkgconfig
