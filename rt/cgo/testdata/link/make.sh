#!/bin/sh
# make.sh records twice.cu as relocatable sm_90 device code in each form
# cuLinkAddData takes besides PTX: a cubin, a fatbin, a host object and an
# archive of it. It needs nvcc (the GPU machine has it); the outputs are
# committed so that TestLinkInputKinds needs only the driver.
set -eu
cd "$(dirname "$0")"
nvcc -rdc=true -arch=sm_90 -cubin -o link_b.cubin twice.cu
nvcc -rdc=true -arch=sm_90 -fatbin -o link_b.fatbin twice.cu
nvcc -rdc=true -arch=sm_90 -c -o link_b.o twice.cu
rm -f liblink_b.a && nvcc -lib -o liblink_b.a link_b.o
ls -l link_b.cubin link_b.fatbin link_b.o liblink_b.a
