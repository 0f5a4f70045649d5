package rt_test

import (
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft"
)

// TestDeprecatedStillWork: the names restored after their removal without
// notice do what they did, through their replacements.
func TestDeprecatedStillWork(t *testing.T) {
	d := soft.New(soft.Options{Devices: 2})
	p, err := rt.PrimaryOn(d, 1)
	if err != nil || !p.IsPrimary() || p.Device().Ordinal() != 1 {
		t.Fatalf("PrimaryOn(d, 1) = %v, %v", p, err)
	}
	devs, _ := rt.DevicesOf(d)
	q, _ := devs[1].Primary()
	if q.Handle() != p.Handle() {
		t.Errorf("PrimaryOn's context %v is not Device.Primary's %v", p, q)
	}
	q.Release()
	if err := p.Release(); err != nil {
		t.Error(err)
	}
	c, err := rt.NewContextOn(d, 0, 0)
	if err != nil || c.IsPrimary() || c.Device().Ordinal() != 0 {
		t.Fatalf("NewContextOn(d, 0, 0) = %v, %v", c, err)
	}
	name, err := c.DeviceName()
	want, _ := devs[0].Name()
	if err != nil || name != want {
		t.Errorf("DeviceName() = %q, %v; want %q", name, err, want)
	}
	n, err := c.Attribute(rt.AttrMultiprocessorCount)
	wantN, _ := devs[0].Attribute(rt.AttrMultiprocessorCount)
	if err != nil || n != wantN {
		t.Errorf("Attribute = %d, %v; want %d", n, err, wantN)
	}
	if err := c.Release(); err != nil {
		t.Error(err)
	}
	// Primary, NewContext and DeviceCount use the default driver (the
	// retain counter of implicit_test.go, two devices).
	if n, err := rt.DeviceCount(); err != nil || n != 2 {
		t.Errorf("DeviceCount() = %d, %v; want 2", n, err)
	}
	for _, f := range []func(int) (*rt.Context, error){rt.Primary, rt.NewContext} {
		c, err := f(1)
		if err != nil || c.Device().Ordinal() != 1 {
			t.Fatalf("%v, %v", c, err)
		}
		c.Release()
	}
}
