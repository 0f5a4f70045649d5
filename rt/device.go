package rt

import "fmt"

// Device is one device of a driver, and where its contexts come from
// (Primary, NewContext).
type Device struct {
	drv Driver
	ord int
}

// Devices lists the default driver's devices; see DevicesOf.
func Devices() ([]Device, error) {
	d, err := Default()
	if err != nil {
		return nil, err
	}
	return DevicesOf(d)
}

// DevicesOf lists driver d's devices: at least one, or an error
// (ErrNoDevice when d has none).
func DevicesOf(d Driver) ([]Device, error) {
	if err := checkDriver("rt.DevicesOf", d); err != nil {
		return nil, err
	}
	n, err := d.DeviceCount()
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, Errorf("rt.DevicesOf", ErrNoDevice, "backend %s has no devices", d.Name())
	}
	out := make([]Device, n)
	for i := range out {
		out[i] = Device{drv: d, ord: i}
	}
	return out, nil
}

// Ordinal is the device's index in its driver.
func (d Device) Ordinal() int { return d.ord }

// Driver is the backend the device belongs to.
func (d Device) Driver() Driver { return d.drv }

// Name is the device's name ("NVIDIA H100 80GB HBM3").
func (d Device) Name() (string, error) {
	if err := d.check("rt.Device.Name"); err != nil {
		return "", err
	}
	return d.drv.DeviceName(d.ord)
}

// Attribute reads a device attribute.
func (d Device) Attribute(a DeviceAttr) (int, error) {
	if err := d.check("rt.Device.Attribute"); err != nil {
		return 0, err
	}
	return d.drv.DeviceAttribute(d.ord, a)
}

// TotalMem is the device's memory in bytes.
func (d Device) TotalMem() (uint64, error) {
	if err := d.check("rt.Device.TotalMem"); err != nil {
		return 0, err
	}
	return d.drv.DeviceTotalMem(d.ord)
}

// ComputeCapability is the device's major and minor compute capability.
func (d Device) ComputeCapability() (major, minor int, err error) {
	if err = d.check("rt.Device.ComputeCapability"); err != nil {
		return
	}
	if major, err = d.Attribute(AttrComputeCapabilityMajor); err != nil {
		return
	}
	minor, err = d.Attribute(AttrComputeCapabilityMinor)
	return
}

// Primary retains the device's primary context: the one context per device
// that CUDA's runtime API and most libraries use. Every call retains it once
// more; Release drops one retain.
func (d Device) Primary() (*Context, error) {
	if err := d.check("rt.Device.Primary"); err != nil {
		return nil, err
	}
	h, err := d.drv.PrimaryCtxRetain(d.ord)
	if err != nil {
		return nil, err
	}
	return &Context{drv: d.drv, h: h, dev: d.ord, primary: true, life: retainLife(d.drv, d.ord)}, nil
}

// NewContext creates a context of its own on the device, with CUctx_flags
// flags; Release destroys it. Unlike cuCtxCreate it does not make the new
// context current.
func (d Device) NewContext(flags uint32) (*Context, error) {
	if err := d.check("rt.Device.NewContext"); err != nil {
		return nil, err
	}
	h, err := d.drv.CtxCreate(d.ord, flags)
	if err != nil {
		return nil, err
	}
	destroyedCtxs.remove(ctxKey{refTo(d.drv), h})
	return &Context{drv: d.drv, h: h, dev: d.ord, life: &ctxLife{}}, nil
}

func (d Device) String() string {
	if d.drv == nil {
		return "zero rt.Device"
	}
	return fmt.Sprintf("%s device %d", d.drv.Name(), d.ord)
}
