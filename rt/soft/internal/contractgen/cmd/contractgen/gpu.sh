#!/bin/bash
# gpu.sh: run on the GPU machine from a corpus root made by "contractgen gen"
# (with the contractgen binary, built with CGO_ENABLED=1, beside it).
# Compiles every source for sm_75/80/90 (-O3 and -G; c.cu also -ftz=true
# and -fmad=false), dumps the SASS, launches the sm_90 builds (cubin and
# driver JIT) and rt/soft on the same PTX, and tars what it made into $OUT.
# A source that fails to compile is logged and skipped; nothing stops the rest.
set -u
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/contract-out}
mkdir -p "$OUT" log ptx cubin sass
export PATH=$PATH:/usr/local/cuda/bin
{ nvcc --version; ptxas --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > log/versions.txt 2>&1
t0=$(date +%s)

sass() { cuobjdump -sass "$1" 2>&1 | sed -E 's@ */\* 0x[0-9a-f]+ \*/@@' | grep -v '^[[:space:]]*$'; }
export -f sass

# Hand-written PTX: one module per kernel, target and build.
hand() {
	f=$1
	t=$(echo "$f" | cut -d/ -f2); b=$(echo "$f" | cut -d/ -f3); k=$(basename "$f" .ptx)
	o=cubin/hand/$t/$b/$k.cubin
	mkdir -p "$(dirname "$o")"
	g=""; [ "$b" = G ] && g="-g"
	if ! ptxas -arch="$t" $g -o "$o" "$f" 2> "log/ptxas_${t}_${b}_$k.txt"; then
		if [ "$b" = G ] && ptxas -arch="$t" -o "$o" "$f" 2>> "log/ptxas_${t}_${b}_$k.txt"; then
			echo "$f" >> log/G_without_g.txt
		else
			echo "$f" >> log/ptxas_failed.txt
			return 0
		fi
	fi
	[ -s "log/ptxas_${t}_${b}_$k.txt" ] || rm -f "log/ptxas_${t}_${b}_$k.txt"
	sass "$o" > "$o.sass"
}
export -f hand
ls hand/*/*/*.ptx | xargs -P16 -n1 bash -c 'hand "$0"'
# one listing per target and build (kernel names are unique)
for d in cubin/hand/*/*; do
	t=$(basename "$(dirname "$d")"); b=$(basename "$d")
	cat "$d"/*.sass > "sass/hand_${t}_$b.sass"
done
echo "hand PTX assembled: $(ls cubin/hand/*/*/*.cubin | wc -l) cubins, $(cat log/ptxas_failed.txt 2>/dev/null | wc -l) failed, $(( $(date +%s) - t0 ))s"

# CUDA C: one module per source, target and build. A source that fails is
# retried without the kernels that fail alone (-DSKIP_<i>).
flags() { case $1 in O3) echo -O3 ;; G) echo -G ;; ftz) echo -O3 -ftz=true ;; nofma) echo -O3 -fmad=false ;; lineinfo) echo -O3 -lineinfo ;; esac; }
export -f flags
cu() {
	s=$1 t=$2 b=$3
	base=${s}_${t}_${b}
	fl=$(flags "$b")
	skip=""
	if ! nvcc -arch="$t" $fl -ptx -o "ptx/$base.ptx" "cu/$s.cu" 2> "log/nvcc_$base.txt"; then
		n=$(grep -c '^#if ' "cu/$s.cu")
		for i in $(seq 0 $((n - 1))); do
			nvcc -arch="$t" $fl -ptx -DONLY=$i -o /dev/null "cu/$s.cu" 2> /dev/null || skip="$skip -DSKIP_$i"
		done
		echo "$base: skipping$skip" >> log/nvcc_failed.txt
		nvcc -arch="$t" $fl -ptx $skip -o "ptx/$base.ptx" "cu/$s.cu" 2>> "log/nvcc_$base.txt" || { echo "$base: still failing" >> log/nvcc_failed.txt; return 0; }
	fi
	nvcc -arch="$t" $fl -cubin $skip -o "cubin/$base.cubin" "cu/$s.cu" 2>> "log/nvcc_$base.txt" || { echo "$base: cubin failed" >> log/nvcc_failed.txt; return 0; }
	[ -s "log/nvcc_$base.txt" ] || rm -f "log/nvcc_$base.txt"
	sass "cubin/$base.cubin" > "sass/$base.sass"
}
export -f cu
for t in sm_75 sm_80 sm_90; do
	for b in O3 G lineinfo; do echo asm $t $b; done
	for b in O3 G ftz nofma lineinfo; do echo c $t $b; done
done | xargs -P16 -L1 bash -c 'cu "$0" "$1" "$2"'
echo "CUDA C compiled: $(ls cubin/*.cubin | wc -l) cubins, $(( $(date +%s) - t0 ))s"
cat log/nvcc_failed.txt 2>/dev/null

# Launch the sm_90 builds on the GPU (cubin and JIT) and in rt/soft.
./contractgen record -root . -o log/records.jsonl -backends cuda,soft > log/record.txt 2>&1
echo "recorded: $(wc -l < log/records.jsonl) launches, $(( $(date +%s) - t0 ))s"

tar czf "$OUT/contract.tgz" log ptx sass
ls -l "$OUT"
cat log/versions.txt
cat log/record.txt
