package rt

// The exported names below were removed without notice (commits 16f6621
// and b3b0b4c) and are back, deprecated, for programs written against them:
// each does what it did, through its replacement. golden/api lists every
// exported name; one marked Deprecated may be removed after a minor release
// (CHANGELOG.md).

// DeviceCount is the number of devices the default driver sees.
//
// Deprecated: use Devices (len of its result) or Driver.DeviceCount.
func DeviceCount() (int, error) {
	d, err := Default()
	if err != nil {
		return 0, err
	}
	return d.DeviceCount()
}

// Primary retains the primary context of device dev on the default driver.
// Every call retains it once more; Release drops one retain.
//
// Deprecated: use Devices and Device.Primary.
func Primary(dev int) (*Context, error) {
	d, err := Default()
	if err != nil {
		return nil, err
	}
	return PrimaryOn(d, dev)
}

// PrimaryOn retains the primary context of device dev on driver d.
//
// Deprecated: use DevicesOf and Device.Primary.
func PrimaryOn(d Driver, dev int) (*Context, error) {
	return Device{drv: d, ord: dev}.Primary()
}

// NewContext creates a new (non-primary) context on device dev of the
// default driver.
//
// Deprecated: use Devices and Device.NewContext.
func NewContext(dev int) (*Context, error) {
	d, err := Default()
	if err != nil {
		return nil, err
	}
	return NewContextOn(d, dev, 0)
}

// NewContextOn creates a context on device dev of driver d with CUctx_flags
// flags.
//
// Deprecated: use DevicesOf and Device.NewContext.
func NewContextOn(d Driver, dev int, flags uint32) (*Context, error) {
	return Device{drv: d, ord: dev}.NewContext(flags)
}

// SetDefault replaces the process-wide driver that Default returns.
//
// Deprecated: register a backend (Register) and choose it with
// CUGEN_BACKEND, or pass a Driver to DevicesOf.
func SetDefault(d Driver) {
	defMu.Lock()
	defDrv, defErr = d, nil
	defCache.Store(&d)
	defMu.Unlock()
}

// DeviceName is the name of the context's device.
//
// Deprecated: use c.Device().Name().
func (c *Context) DeviceName() (string, error) { return c.Device().Name() }

// Attribute reads a device attribute of the context's device.
//
// Deprecated: use c.Device().Attribute(a).
func (c *Context) Attribute(a DeviceAttr) (int, error) { return c.Device().Attribute(a) }

// Placement reports how launches of k reach the kernel in d, binding the
// kernel there if it is not yet: device is the parameter layout the driver
// reports for the loaded kernel (nil where it cannot tell), and placed says
// whether the backend places each parameter.
//
// Deprecated: use DriverParams and Placed.
func (k *Kernel) Placement(d Driver) (device []ParamSpec, placed bool, err error) {
	if placed, err = k.Placed(d); err != nil {
		return nil, false, err
	}
	device, _ = k.DriverParams(d)
	return device, placed, nil
}
