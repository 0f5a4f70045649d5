package rt

import "fmt"

// Device is one device of a driver.
type Device struct {
	drv Driver
	ord int
}

// Devices lists the default driver's devices.
func Devices() ([]Device, error) {
	d, err := Default()
	if err != nil {
		return nil, err
	}
	return DevicesOf(d)
}

// DevicesOf lists driver d's devices.
func DevicesOf(d Driver) ([]Device, error) {
	n, err := d.DeviceCount()
	if err != nil {
		return nil, err
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
func (d Device) Name() (string, error) { return d.drv.DeviceName(d.ord) }

// Attribute reads a device attribute.
func (d Device) Attribute(a DeviceAttr) (int, error) { return d.drv.DeviceAttribute(d.ord, a) }

// TotalMem is the device's memory in bytes.
func (d Device) TotalMem() (uint64, error) { return d.drv.DeviceTotalMem(d.ord) }

// ComputeCapability is the device's major and minor compute capability.
func (d Device) ComputeCapability() (major, minor int, err error) {
	if major, err = d.Attribute(AttrComputeCapabilityMajor); err != nil {
		return
	}
	minor, err = d.Attribute(AttrComputeCapabilityMinor)
	return
}

// Primary retains the device's primary context.
func (d Device) Primary() (*Context, error) { return PrimaryOn(d.drv, d.ord) }

// NewContext creates a context on the device.
func (d Device) NewContext(flags uint32) (*Context, error) { return NewContextOn(d.drv, d.ord, flags) }

func (d Device) String() string { return fmt.Sprintf("%s device %d", d.drv.Name(), d.ord) }
