# client.mk - the makefile of a client built against an INSTALLED GASNet, as
# GASNet-1 clients write theirs: everything comes from the installed .mak
# fragment. Used by t-mak.sh and t-cxx.sh:
#
#   make -f client.mk GASNET_PREFIX=/inst CONDUIT=udp MODE=par SRC=dir OUT=dir c|cxx
#
# or against a build tree (t-buildtree.sh), naming its fragment:
#
#   make -f client.mk MAK=/build/udp-conduit/udp-par.mak CONDUIT=udp MODE=par ...
#
#   c    OUT/t_client      from SRC/t_client.c   with GASNET_CC, linked with GASNET_LD
#   cxx  OUT/t_client_cxx  from SRC/t_client.cpp with GASNET_CXX -std=c++17, linked with it
#   ex   OUT/t_ex_am, OUT/t_ex_rma from EXSRC/t_ex_*.c (GASNet-EX clients: gasnetex.h), as c
#   cxxlink  OUT/cxx_linkage from OUT/cxx_linkage.cpp (t-cxx.sh writes it), as cxx
#
# The client's own flags (warnings as errors, C++17) come after GASNet's.
MAK ?= $(GASNET_PREFIX)/include/$(CONDUIT)-conduit/$(CONDUIT)-$(MODE).mak
include $(MAK)

CLIENT_CFLAGS = -Wall -Wextra -Werror
CLIENT_CXXFLAGS = -std=c++17 -Wall -Wextra -Werror

c: $(OUT)/t_client
cxx: $(OUT)/t_client_cxx
cxxlink: $(OUT)/cxx_linkage
ex: $(OUT)/t_ex_am $(OUT)/t_ex_rma
.PHONY: c cxx cxxlink ex

$(OUT)/t_client.o: $(SRC)/t_client.c
	$(GASNET_CC) $(GASNET_CPPFLAGS) $(GASNET_CFLAGS) $(CLIENT_CFLAGS) -c $< -o $@
$(OUT)/t_client: $(OUT)/t_client.o
	$(GASNET_LD) $(GASNET_LDFLAGS) -o $@ $< $(GASNET_LIBS)

$(OUT)/t_client_cxx.o: $(SRC)/t_client.cpp
	$(GASNET_CXX) $(GASNET_CXXCPPFLAGS) $(GASNET_CXXFLAGS) $(CLIENT_CXXFLAGS) -c $< -o $@
$(OUT)/t_client_cxx: $(OUT)/t_client_cxx.o
	$(GASNET_CXX) $(GASNET_LDFLAGS) -o $@ $< $(GASNET_LIBS)

$(OUT)/cxx_linkage: $(OUT)/cxx_linkage.cpp
	$(GASNET_CXX) $(GASNET_CXXCPPFLAGS) $(GASNET_CXXFLAGS) -std=c++17 -c $< -o $@.o
	$(GASNET_CXX) $(GASNET_LDFLAGS) -o $@ $@.o $(GASNET_LIBS)

$(OUT)/t_ex_%.o: $(EXSRC)/t_ex_%.c
	$(GASNET_CC) $(GASNET_CPPFLAGS) $(GASNET_CFLAGS) $(CLIENT_CFLAGS) -c $< -o $@
$(OUT)/t_ex_%: $(OUT)/t_ex_%.o
	$(GASNET_LD) $(GASNET_LDFLAGS) -o $@ $< $(GASNET_LIBS)
