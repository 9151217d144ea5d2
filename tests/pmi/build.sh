# tests/pmi/build.sh - the client programs the PMI tests run (sourced).
# They are built by the test, not by make: the hybrid one needs an MPI's
# compiler wrapper, which plain `make` must not.
#
#   pmi_build CC CONDUIT SRC OUT   compile SRC (SEQ mode) with CC against the
#                                  in-tree libgasnet-CONDUIT-seq.a; 1 on failure
#   pmi_build_classic CONDUIT OUT  tests/clients/classic_core.c with gcc
#   pmi_build_hybrid MPI CONDUIT OUT
#                                  tests/pmi/t_hybrid.c with mpicc.MPI (mpich
#                                  or openmpi); 1 when that MPI is missing

pmi_build() {
    local cc=$1 conduit=$2 src=$3 out=$4 uc
    uc=$(echo "$conduit" | tr a-z A-Z)
    $cc -std=gnu99 -DGASNET_SEQ -DGASNET_CONDUIT_$uc -I"$TOP/include" "$src" -o "$out" \
        "$TOP/.libs/libgasnet-$conduit-seq.a" $(pkg-config --libs libuv) -lz -pthread
}

pmi_build_classic() { pmi_build gcc "$1" "$TOP/tests/clients/classic_core.c" "$2"; }

pmi_build_hybrid() {
    command -v "mpicc.$1" >/dev/null && pmi_build "mpicc.$1" "$2" "$TOP/tests/pmi/t_hybrid.c" "$3"
}
