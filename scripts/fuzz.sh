#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/, only in the package when IAPDESK_FUZZ=1) into .build-fuzz and
# runs each for a bounded time. Exits non-zero when any target crashed or broke an invariant; the
# input that did it is kept in .build-fuzz/crashes/TARGET/. See docs/fuzzing.md.
#
#   scripts/fuzz.sh                         every target, FUZZ_SECONDS (default 30) each
#   scripts/fuzz.sh -t 600 FuzzKeyDecoder   one target for ten minutes
#   scripts/fuzz.sh --build-only            build, do not run
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-30}
scratch=${FUZZ_SCRATCH:-.build-fuzz}
build_only=0
targets=()
while (($#)); do
    case "$1" in
        -t|--seconds) seconds=$2; shift 2 ;;
        --build-only) build_only=1; shift ;;
        -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
if ((${#targets[@]} == 0)); then
    for dir in Fuzz/Sources/Fuzz*/; do
        name=$(basename "$dir")
        [[ $name == FuzzSupport ]] || targets+=("$name")
    done
fi

# Inputs that are text of one kind get that kind's tokens.
dictionary() {
    case "$1" in
        FuzzModels|FuzzSignedDataInspector|FuzzAPIErrorBody) echo Fuzz/Dictionaries/json.dict ;;
        FuzzTOMLDocument|FuzzConfigFile|FuzzTheme) echo Fuzz/Dictionaries/toml.dict ;;
        FuzzJWSSplitter|FuzzSignedDataVerifier|FuzzSigningKey) echo Fuzz/Dictionaries/unicode.dict ;;
    esac
}

export IAPDESK_FUZZ=1
build_start=$SECONDS
for target in "${targets[@]}"; do
    echo "== build $target"
    swift build --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer --product "$target"
done
echo "== built ${#targets[@]} targets in $((SECONDS - build_start)) s"
((build_only)) && exit 0

# Key seeds are made on each run, never kept in git: a committed private key, even a throwaway
# one, reads as a leaked secret. Same kinds as before: PKCS#8 P-256 (accepted), P-384, Ed25519,
# SEC1 P-256 and a truncated PKCS#8 (refused).
command -v openssl >/dev/null || { echo "fuzz.sh: openssl is needed to make the key seeds (apt-get install openssl)" >&2; exit 2; }
key_seeds="$scratch/seeds/FuzzSigningKey"
rm -rf "$key_seeds" && mkdir -p "$key_seeds"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$key_seeds/pkcs8-p256.pem" 2>/dev/null
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 -out "$key_seeds/pkcs8-p384.pem" 2>/dev/null
openssl genpkey -algorithm ED25519 -out "$key_seeds/pkcs8-ed25519.pem" 2>/dev/null
openssl ec -in "$key_seeds/pkcs8-p256.pem" -out "$key_seeds/sec1-p256.pem" 2>/dev/null
head -c 150 "$key_seeds/pkcs8-p256.pem" >"$key_seeds/truncated-p256.pem"
openssl ec -in "$key_seeds/pkcs8-p256.pem" -pubout -out "$key_seeds/public-p256.pem" 2>/dev/null

failed=()
for target in "${targets[@]}"; do
    # New inputs go to the scratch corpus; the committed seeds in Fuzz/Corpus are only read.
    corpus="$scratch/corpus/$target"
    crashes="$scratch/crashes/$target"
    log="$scratch/logs/$target.log"
    mkdir -p "$corpus" "$crashes" "$(dirname "$log")"
    options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$crashes/" -print_final_stats=1)
    dict=$(dictionary "$target")
    [[ -n $dict ]] && options+=(-dict="$dict")
    start=$SECONDS
    touch "$scratch/logs/.started"
    status=0
    seeds=("Fuzz/Corpus/$target")
    [[ $target == FuzzSigningKey ]] && seeds=("$key_seeds")
    "$scratch/debug/$target" "${options[@]}" "$corpus" "${seeds[@]}" >"$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    echo "== $target: ${runs:-?} inputs in $((SECONDS - start)) s, exit $status"
    if ((status != 0)); then
        failed+=("$target")
        grep -E "invariant broken|Fatal error|ERROR: libFuzzer|SUMMARY" "$log" | head -5 || true
        find "$crashes" -type f -newer "$scratch/logs/.started" | while read -r file; do
            echo "   input: $file  (replay: $scratch/debug/$target $file)"
        done
        echo "   log: $log"
    fi
done

if ((${#failed[@]})); then
    echo "fuzz.sh: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz.sh: ${#targets[@]} targets ran ${seconds} s each without a crash"
