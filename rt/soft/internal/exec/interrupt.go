// Stopping runaway launches: a wall-clock limit (Config.Timeout), a stop
// when the driver records a sticky fault elsewhere (an explicit abort, or
// another kernel's fault), and a call-depth limit. The clock and the
// driver's fault are read where the budget is charged (every few million
// thread-instructions of a CTA, at backward branches) and every 1024 CTAs,
// so the checks cost nothing per instruction.

package exec

import "time"

// MinFrameBytes is the stack a call takes at least, whatever its local
// frame: a GPU's CALL keeps the return address and the registers it saves
// in local memory. A thread may be StackBytes/MinFrameBytes calls deep.
const MinFrameBytes = 16

func (l *Launch) setLimits() {
	if t := l.Config.Timeout; t > 0 {
		l.deadline = l.start.Add(t)
	}
	l.maxDepth = max(int(l.Config.StackBytes/MinFrameBytes), 1)
}

func (l *Launch) pastDeadline() bool {
	return !l.deadline.IsZero() && time.Now().After(l.deadline)
}

func (l *Launch) timeoutFault() *fault {
	return &fault{kind: fBudget, lane: -1, pc: -1,
		msg: sprintf("the launch ran past its wall-clock limit of %v (soft.Options.LaunchTimeout) and was stopped, as a GPU's watchdog stops a kernel", l.Config.Timeout)}
}

// interrupted is the fault that stops the launch now, or nil: past its
// deadline, or the driver faulted (sticky.go in rt/soft) since it began.
func (l *Launch) interrupted() *fault {
	if l.pastDeadline() {
		return l.timeoutFault()
	}
	if f := l.Host.Faulted(); f != nil {
		return &fault{kind: fBudget, code: f.Code, lane: -1, msg: "stopped: " + f.Detail}
	}
	return nil
}

// depthFault is a call of fn by lane of warp at pc beyond maxDepth frames.
func (l *Launch) depthFault(warp, lane int, pc int32, fn string) *fault {
	return &fault{kind: fStack, warp: warp, lane: lane, pc: pc,
		msg: sprintf("call stack overflow: calling %s %d frames deep, the limit is %d (soft.Options.StackBytes %d / %d bytes a call takes at least)",
			fn, l.maxDepth+1, l.maxDepth, l.Config.StackBytes, MinFrameBytes)}
}
