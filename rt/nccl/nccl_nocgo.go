//go:build !cgo

package nccl

import "errors"

func init() {
	libEngine = func() (engine, error) {
		return nil, errors.New("rt/nccl: built with CGO_ENABLED=0; loading NCCL needs cgo (rebuild with CGO_ENABLED=1; rt/soft's contexts work without it)")
	}
}
