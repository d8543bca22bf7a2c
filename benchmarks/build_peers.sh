#!/usr/bin/env bash
# Build the programs cpsolve is measured against, from their public sources, and fetch BurrTools'
# example puzzles. Nothing of theirs is kept in this repository: this script clones them with git.
#
# usage: benchmarks/build_peers.sh DEST
#   DEST/bin                 burrTxt, burrTxt-nosym, dlx1, dlx2, dlx3 (and btlevels, see below)
#   DEST/burrtools-examples  the .xmpuzzle files of BurrTools' examples folder
#   DEST/src                 the clones
#
# Environment:
#   BURRTOOLS_GIT  where to clone BurrTools from (default https://github.com/burr-tools/burr-tools.git)
#   CWEB_GIT       where to clone Knuth's programs from (default https://github.com/ascherer/cwebtest.git)
#   BTLEVELS_SRC   a btlevels.cpp to build against BurrTools' library (prints BurrTools' level for every
#                  assembly; used by the tests that compare levels assembly by assembly). It is built on
#                  BurrTools' GPL library, so it is kept with those sources, not in this repository.
#   JOBS           parallel compilations (default 2)
#
# Needs git, g++, gcc, zlib's headers (zlib1g-dev) and ctangle (texlive-binaries). A few minutes on two cores.
#
# What is built (the facts of each program's own build files):
#   burrTxt        BurrTools' command-line solver: meson.build's burrTxt target, i.e. src/burrTxt.cpp with the
#                  tools, halfedge and lib sources, C++11, -O2, without NDEBUG (meson's default build keeps
#                  bt_assert on), linked with zlib and pthread.
#   burrTxt-nosym  the same with the result-symmetry filter of the two assemblers switched off, so that it
#                  reports every assembly (cpsolve's first number): in src/lib/assembler_0.cpp and
#                  assembler_1.cpp the block opened by the condition `!unSymmetric(resultSym)` is disabled.
#   dlx1-3         Knuth's DLX1, DLX2 and DLX3, tangled from their CWEB sources with gb_flip, gcc -O2.
set -euo pipefail

DEST=$(mkdir -p "${1:?usage: $0 DEST}" && cd "$1" && pwd)
BURRTOOLS_GIT=${BURRTOOLS_GIT:-https://github.com/burr-tools/burr-tools.git}
CWEB_GIT=${CWEB_GIT:-https://github.com/ascherer/cwebtest.git}
BURRTOOLS_COMMIT=b72a71d   # the commit the figures in results/ were measured with
CWEB_COMMIT=cf98784
JOBS=${JOBS:-2}

for tool in git g++ gcc ctangle; do
    command -v "$tool" >/dev/null || { echo "build_peers.sh: $tool is needed (see the header of this script)" >&2; exit 2; }
done

mkdir -p "$DEST/bin" "$DEST/src" "$DEST/burrtools-examples"

checkout() {  # URL FOLDER COMMIT: a clone of URL at COMMIT in DEST/src/FOLDER
    local where="$DEST/src/$2"
    [ -d "$where/.git" ] || git clone --quiet "$1" "$where"
    git -C "$where" checkout --quiet "$3"
}

# ------------------------------------------------------------------------------------- BurrTools
checkout "$BURRTOOLS_GIT" burr-tools "$BURRTOOLS_COMMIT"
cp "$DEST/src/burr-tools/examples/"*.xmpuzzle "$DEST/burrtools-examples/"

cd "$DEST/src/burr-tools"
library=(src/tools/fileexists.cpp src/tools/gzstream.cpp src/tools/xml.cpp src/halfedge/*.cpp)
# The lib sources of meson.build's libburr: every src/lib/*.cpp but the unit tests' (*_test.cpp).
for f in src/lib/*.cpp; do
    case "$f" in *_test.cpp) ;; *) library+=("$f") ;; esac
done

compile() {  # OBJECT-FOLDER SOURCE... : each source to OBJECT-FOLDER/NAME.o, JOBS at a time
    local out=$1; shift
    mkdir -p "$out"
    for f in "$@"; do
        g++ -std=c++11 -O2 -w -Isrc -Isrc/lib -c "$f" -o "$out/$(echo "$f" | tr / _).o" &
        while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    done
    wait
}

compile obj "${library[@]}"
compile obj-main src/burrTxt.cpp
g++ -O2 obj/*.o obj-main/*.o -o "$DEST/bin/burrTxt" -lz -lpthread

# burrTxt-nosym: the two assemblers recompiled with their rotation filter's condition made false.
mkdir -p nosym
for a in assembler_0 assembler_1; do
    sed 's/if (!unSymmetric(resultSym)) {/if (0) {/' "src/lib/$a.cpp" > "nosym/$a.cpp"
    grep -q 'if (0) {' "nosym/$a.cpp" || { echo "build_peers.sh: the filter of $a.cpp was not found" >&2; exit 1; }
done
rm -rf obj-nosym && cp -r obj obj-nosym
rm obj-nosym/src_lib_assembler_0.cpp.o obj-nosym/src_lib_assembler_1.cpp.o
compile obj-nosym nosym/assembler_0.cpp nosym/assembler_1.cpp
g++ -O2 obj-nosym/*.o obj-main/*.o -o "$DEST/bin/burrTxt-nosym" -lz -lpthread

if [ -n "${BTLEVELS_SRC:-}" ]; then
    compile obj-btlevels "$BTLEVELS_SRC"
    g++ -O2 obj/*.o obj-btlevels/*.o -o "$DEST/bin/btlevels" -lz -lpthread
fi

# ------------------------------------------------------------------------------- Knuth's DLX1-3
checkout "$CWEB_GIT" cwebtest "$CWEB_COMMIT"
cd "$DEST/src/cwebtest"
CWEBINPUTS=. ctangle gb_flip.w - gb_flip.c >/dev/null   # also writes gb_flip.h
for p in dlx1 dlx2 dlx3; do
    CWEBINPUTS=. ctangle "$p.w" - "$p.c" >/dev/null
    gcc -O2 -w -I. "$p.c" gb_flip.c -o "$DEST/bin/$p"
done

ls -l "$DEST/bin"
echo "built with $(gcc --version | head -1); examples: $(ls "$DEST/burrtools-examples" | wc -l) files"
