#!/bin/sh
# The same paths and costs from every build (issue 17): builds the core with
# spec/c/test_same_answer.c in several ways -- gcc and clang, -O0 and -O3, and
# -ffp-contract=fast with fused multiply-add where this processor has it, and clang
# with __GNUC__ undefined (the portable paths MSVC takes) -- and compares the
# digests their runs print (thousands of queries' statuses, cost bits and paths).
# A compiler that is not installed is skipped, and said so.
#
#   sh spec/c/same_builds.sh [repository root]
set -u
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
dir=$(mktemp -d "${TMPDIR:-/tmp}/astar-builds.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT

fma=
if [ "$(uname -m)" = x86_64 ] && grep -qw fma /proc/cpuinfo 2>/dev/null; then
    fma=-mfma # x86-64 has no fused multiply-add unless told; aarch64 always has it
fi

first= first_name= failed=0 built=0
variant() { # name, compiler, flags...
    name=$1 cc=$2
    shift 2
    if ! command -v "$cc" >/dev/null 2>&1; then
        echo "skipped $name: no $cc"
        return
    fi
    # shellcheck disable=SC2086 # the core's sources: every C file of src/ (not src/lua/)
    if ! "$cc" -std=c11 "$@" -I"$root/src" "$root"/src/*.c "$root/spec/c/test_same_answer.c" \
            -o "$dir/$name" -lm -lpthread 2>"$dir/$name.log"; then
        cat "$dir/$name.log" >&2
        echo "not ok - $name: does not build"
        failed=1
        return
    fi
    out=$("$dir/$name" --digest) || { echo "not ok - $name: the run failed"; failed=1; return; }
    built=$((built + 1))
    echo "$name: $out"
    if [ -z "$first" ]; then
        first=$out first_name=$name
    elif [ "$out" != "$first" ]; then
        echo "not ok - $name differs from $first_name"
        failed=1
    fi
}

variant gcc-O0 gcc -O0
variant gcc-O3 gcc -O3
variant gcc-O3-contract gcc -O3 -ffp-contract=fast $fma
variant clang-O0 clang -O0
variant clang-O3-contract clang -O3 -ffp-contract=fast $fma
# The paths a compiler without GNU C takes (MSVC): core.h's and jps.c's portable bit scans and
# inlining, no __builtin (-Wno-literal-range: glibc's INFINITY without __GNUC__ is 1e10000f).
variant clang-O2-no-gnu clang -O2 -U__GNUC__ -Wno-literal-range
[ "$built" -ge 2 ] || { echo "not ok - fewer than two builds to compare"; exit 1; }
[ "$failed" = 0 ] && echo "ok - $built builds, one digest"
exit "$failed"
