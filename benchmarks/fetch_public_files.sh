#!/usr/bin/env bash
# Fetch the public BurrTools files designers have made, for benchmarks/burrtools_files.py and
# benchmarks/disassembly.py (`--files DEST`). Nothing of theirs is kept in this repository: this script
# clones the two public repositories with git and copies their .xmpuzzle files into one folder, named
# as the tables in results/ name them.
#
# usage: benchmarks/fetch_public_files.sh DEST
#   DEST/*.xmpuzzle   the files
#   DEST/src          the clones (shallow)
#
#   github.com/aaron-siegel/puzzlecad   src/main/scad/AUTHOR/NAME/*.xmpuzzle: kept as they are named
#                                       (eyckmans.gargamel.xmpuzzle, lohe.key-trap.xmpuzzle, ...); a file
#                                       without its author in its name gets the author's surname
#                                       (aracna.xmpuzzle -> eyckmans.aracna.xmpuzzle). Names with spaces (Lohe's
#                                       Corsage knot files) are left out, as in results/burrtools-files.md.
#   github.com/kgeusens/burr-data-go    test/*.xmpuzzle as bdg.NAME.xmpuzzle, spaces as _ ("two face 3" ->
#                                       bdg.two_face_3.xmpuzzle).
#
# Environment: PUZZLECAD_GIT, BURRDATA_GIT override where to clone from.
set -euo pipefail

DEST=$(mkdir -p "${1:?usage: $0 DEST}" && cd "$1" && pwd)
PUZZLECAD_GIT=${PUZZLECAD_GIT:-https://github.com/aaron-siegel/puzzlecad.git}
BURRDATA_GIT=${BURRDATA_GIT:-https://github.com/kgeusens/burr-data-go.git}
command -v git >/dev/null || { echo "fetch_public_files.sh: git is needed" >&2; exit 2; }

mkdir -p "$DEST/src"
for pair in "puzzlecad $PUZZLECAD_GIT" "burr-data-go $BURRDATA_GIT"; do
    set -- $pair
    if [ ! -d "$DEST/src/$1/.git" ]; then
        git clone --quiet --depth 1 "$2" "$DEST/src/$1"
    fi
done

copied=0
while IFS= read -r -d '' file; do
    name=$(basename "$file")
    case "$name" in *" "*) continue ;; esac
    author=$(basename "$(dirname "$(dirname "$file")")")   # src/main/scad/AUTHOR/NAME/FILE
    surname=${author##*-}
    case "$name" in "$surname".*) ;; *) name="$surname.$name" ;; esac
    cp "$file" "$DEST/$name"
    copied=$((copied + 1))
done < <(find "$DEST/src/puzzlecad/src/main/scad" -name '*.xmpuzzle' -print0)

while IFS= read -r -d '' file; do
    name=$(basename "$file")
    cp "$file" "$DEST/bdg.${name// /_}"
    copied=$((copied + 1))
done < <(find "$DEST/src/burr-data-go/test" -maxdepth 1 -name '*.xmpuzzle' -print0)

echo "fetch_public_files.sh: $copied files in $DEST"
