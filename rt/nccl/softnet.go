package nccl

import (
	"bufio"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// The soft engine across processes: a soft UniqueID carries the address
// of the process that made it, which serves its communicators'
// rendezvous (softhub.go) over TCP to the ranks of other processes. The
// protocol trusts its peers (ranks of one job, on loopback or the job's
// network) but bounds what it reads.

// softMagic starts every soft UniqueID (NCCL's start with a random
// 64-bit magic and a socket address: a collision is not a concern).
var softMagic = [16]byte{'c', 'u', 'g', 'e', 'n', '-', 's', 'o', 'f', 't', '-', 'n', 'c', 'c', 'l', 1}

// softID is a soft UniqueID's content.
type softID struct {
	key  commKey
	addr string // "" for an ID that only this process's ranks use
}

func (s softID) encode() UniqueID {
	var id UniqueID
	copy(id[:16], softMagic[:])
	copy(id[16:32], s.key[:])
	id[32] = byte(len(s.addr))
	copy(id[33:], s.addr)
	return id
}

func isSoftID(id UniqueID) bool { return [16]byte(id[:16]) == softMagic }

func decodeSoftID(op string, id UniqueID) (softID, error) {
	if !isSoftID(id) {
		return softID{}, errorf(op, InvalidArgument, "the UniqueID is not a soft one (from NewUniqueID with an rt/soft driver): rt/soft's contexts need one")
	}
	n := int(id[32])
	if n > len(id)-33 {
		return softID{}, errorf(op, InvalidArgument, "corrupt soft UniqueID (address of %d bytes)", n)
	}
	var s softID
	copy(s.key[:], id[16:32])
	s.addr = string(id[33 : 33+n])
	return s, nil
}

// newSoftKey is a fresh random communicator key, owned by this process.
func newSoftKey() (commKey, error) {
	var k commKey
	if _, err := rand.Read(k[:]); err != nil {
		return k, err
	}
	theHub.own(k)
	return k, nil
}

// newSoftID makes an ID whose rendezvous this process serves on host
// ("" is loopback).
func newSoftID(host string) (UniqueID, error) {
	const op = "nccl.NewUniqueID"
	key, err := newSoftKey()
	if err != nil {
		return UniqueID{}, &Error{Op: op, Code: SystemError, Err: err}
	}
	addr, err := serveHub(host)
	if err != nil {
		return UniqueID{}, &Error{Op: op, Code: SystemError, Detail: "serving the soft rendezvous", Err: err}
	}
	if len(addr) > len(UniqueID{})-33 {
		return UniqueID{}, errorf(op, InvalidArgument, "address %q too long for a UniqueID", addr)
	}
	return softID{key: key, addr: addr}.encode(), nil
}

// rendezvous is how a soft rank reaches its communicator's rendezvous:
// directly in the process that serves it, over TCP from others.
type rendezvous interface {
	join(rank, size int, timeout time.Duration) error
	collective(rank int, seq uint64, d opDesc, in []byte, timeout time.Duration) ([]byte, error)
	send(src, dst int, seq uint64, d opDesc, data []byte) error
	recv(src, dst int, seq uint64, d opDesc, timeout time.Duration) ([]byte, error)
	leave(rank int, why string, abort bool)
	// child reaches the communicator key, which a split of this one made.
	child(key commKey) rendezvous
}

type localRV struct{ *hubComm }

func (l localRV) child(key commKey) rendezvous {
	theHub.own(key)
	return localRV{theHub.get(key)}
}

// rendezvousOf reaches id's rendezvous.
func rendezvousOf(op string, id UniqueID) (rendezvous, error) {
	s, err := decodeSoftID(op, id)
	if err != nil {
		return nil, err
	}
	if theHub.owns(s.key) {
		return localRV{theHub.get(s.key)}, nil
	}
	if s.addr == "" {
		return nil, errorf(op, InvalidArgument, "the soft UniqueID was made for one process's ranks (InitAll) and this process did not make it")
	}
	cl, err := dialHub(s.addr)
	if err != nil {
		return nil, &Error{Op: op, Code: SystemError, Detail: "reaching the soft rendezvous at " + s.addr + " (the process that made the UniqueID)", Err: err}
	}
	return remoteRV{cl, s.key}, nil
}

// ---- the wire ----

// frame is one message: a request from a rank's process, or the reply.
type frame struct {
	Req     uint64
	Type    string // join, coll, send, recv, leave; reply
	Key     commKey
	Rank    int
	Size    int
	Seq     uint64
	Peer    int
	Desc    opDesc
	Timeout time.Duration
	Why     string
	Abort   bool
	// A reply's error.
	Failed bool
	Op     string
	Code   Result
	Detail string
}

const (
	frameMagic   = 0x31534743 // "CGS1"
	maxFrameMeta = 1 << 20
	maxFrameData = 1 << 36
)

func writeFrame(w io.Writer, f *frame, data []byte) error {
	meta, err := json.Marshal(f)
	if err != nil {
		return err
	}
	var hdr [16]byte
	binary.LittleEndian.PutUint32(hdr[0:], frameMagic)
	binary.LittleEndian.PutUint32(hdr[4:], uint32(len(meta)))
	binary.LittleEndian.PutUint64(hdr[8:], uint64(len(data)))
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	if _, err := w.Write(meta); err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

func readFrame(r io.Reader) (*frame, []byte, error) {
	var hdr [16]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, nil, err
	}
	if binary.LittleEndian.Uint32(hdr[0:]) != frameMagic {
		return nil, nil, fmt.Errorf("not a soft rendezvous message (magic %#x)", binary.LittleEndian.Uint32(hdr[0:]))
	}
	nm, nd := binary.LittleEndian.Uint32(hdr[4:]), binary.LittleEndian.Uint64(hdr[8:])
	if nm > maxFrameMeta || nd > maxFrameData {
		return nil, nil, fmt.Errorf("soft rendezvous message of %d+%d bytes: too large", nm, nd)
	}
	meta := make([]byte, nm)
	if _, err := io.ReadFull(r, meta); err != nil {
		return nil, nil, err
	}
	var f frame
	if err := json.Unmarshal(meta, &f); err != nil {
		return nil, nil, fmt.Errorf("soft rendezvous message: %v", err)
	}
	data := make([]byte, nd)
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, nil, err
	}
	return &f, data, nil
}

// ---- serving ----

var servers struct {
	mu    sync.Mutex
	addrs map[string]string // listen host → advertised address
}

// serveHub starts (once per host) serving this process's rendezvous on
// host ("" is 127.0.0.1), and returns the address to advertise.
func serveHub(host string) (string, error) {
	if host == "" {
		host = "127.0.0.1"
	}
	servers.mu.Lock()
	defer servers.mu.Unlock()
	if a, ok := servers.addrs[host]; ok {
		return a, nil
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return "", err
	}
	if servers.addrs == nil {
		servers.addrs = map[string]string{}
	}
	addr := ln.Addr().String()
	servers.addrs[host] = addr
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go serveConn(conn)
		}
	}()
	return addr, nil
}

type memberKey struct {
	key  commKey
	rank int
}

// serveConn answers one remote process's requests, each in a goroutine of
// its own (a Recv may wait while a Send on the same connection arrives).
// When the connection closes, its ranks that have not left are gone.
func serveConn(conn net.Conn) {
	var (
		wmu     sync.Mutex
		mu      sync.Mutex
		members = map[memberKey]bool{}
		wg      sync.WaitGroup
	)
	w := bufio.NewWriter(conn)
	reply := func(f *frame, data []byte, err error) {
		out := &frame{Req: f.Req, Type: "reply"}
		if err != nil {
			out.Failed, out.Code, out.Op, out.Detail = true, CodeOf(err), f.Type, err.Error()
			var e *Error
			if errors.As(err, &e) {
				out.Op, out.Detail = e.Op, e.Detail
			}
			data = nil
		}
		wmu.Lock()
		defer wmu.Unlock()
		if writeFrame(w, out, data) == nil {
			w.Flush()
		}
	}
	r := bufio.NewReader(conn)
	for {
		f, data, err := readFrame(r)
		if err != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			hc := theHub.get(f.Key)
			switch f.Type {
			case "join":
				err := hc.join(f.Rank, f.Size, f.Timeout)
				if err == nil {
					mu.Lock()
					members[memberKey{f.Key, f.Rank}] = true
					mu.Unlock()
					hc.remoteJoined(1)
				}
				reply(f, nil, err)
			case "coll":
				out, err := hc.collective(f.Rank, f.Seq, f.Desc, data, f.Timeout)
				reply(f, out, err)
			case "send":
				reply(f, nil, hc.send(f.Rank, f.Peer, f.Seq, f.Desc, data))
			case "recv":
				out, err := hc.recv(f.Peer, f.Rank, f.Seq, f.Desc, f.Timeout)
				reply(f, out, err)
			case "leave":
				mu.Lock()
				k := memberKey{f.Key, f.Rank}
				joined := members[k]
				delete(members, k)
				mu.Unlock()
				hc.leave(f.Rank, f.Why, f.Abort)
				if joined {
					hc.remoteJoined(-1)
				}
				reply(f, nil, nil)
			default:
				reply(f, nil, fmt.Errorf("unknown request %q", f.Type))
			}
		}()
	}
	conn.Close()
	mu.Lock()
	gone := members
	members = map[memberKey]bool{}
	mu.Unlock()
	for m := range gone {
		hc := theHub.get(m.key)
		hc.leave(m.rank, "lost its connection to the rendezvous (its process exited?)", true)
		hc.remoteJoined(-1)
	}
	wg.Wait()
}

// ---- the client side ----

// hubClient is this process's connection to another process's rendezvous,
// shared by every rank here that uses it.
type hubClient struct {
	addr string
	conn net.Conn
	wmu  sync.Mutex
	w    *bufio.Writer

	mu      sync.Mutex
	next    uint64
	pending map[uint64]chan reply
	broken  error
}

type reply struct {
	f    *frame
	data []byte
	err  error
}

var clients struct {
	mu sync.Mutex
	m  map[string]*hubClient
}

// dialHub connects to the rendezvous at addr (once per process).
func dialHub(addr string) (*hubClient, error) {
	clients.mu.Lock()
	defer clients.mu.Unlock()
	if cl := clients.m[addr]; cl != nil {
		return cl, nil
	}
	conn, err := net.DialTimeout("tcp", addr, 30*time.Second)
	if err != nil {
		return nil, err
	}
	cl := &hubClient{addr: addr, conn: conn, w: bufio.NewWriter(conn), pending: map[uint64]chan reply{}}
	if clients.m == nil {
		clients.m = map[string]*hubClient{}
	}
	clients.m[addr] = cl
	go cl.read()
	return cl, nil
}

func (cl *hubClient) read() {
	r := bufio.NewReader(cl.conn)
	for {
		f, data, err := readFrame(r)
		if err != nil {
			cl.breakAll(err)
			return
		}
		cl.mu.Lock()
		ch := cl.pending[f.Req]
		delete(cl.pending, f.Req)
		cl.mu.Unlock()
		if ch != nil {
			ch <- reply{f: f, data: data}
		}
	}
}

// breakAll fails every pending and later call: the rendezvous is gone.
func (cl *hubClient) breakAll(err error) {
	clients.mu.Lock()
	if clients.m[cl.addr] == cl {
		delete(clients.m, cl.addr)
	}
	clients.mu.Unlock()
	cl.conn.Close()
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.broken == nil {
		cl.broken = err
	}
	for req, ch := range cl.pending {
		ch <- reply{err: err}
		delete(cl.pending, req)
	}
}

// call sends f with data and waits for the reply (at most wait).
func (cl *hubClient) call(f *frame, data []byte, wait time.Duration) ([]byte, error) {
	ch := make(chan reply, 1)
	cl.mu.Lock()
	if cl.broken != nil {
		defer cl.mu.Unlock()
		return nil, cl.lost(f, cl.broken)
	}
	cl.next++
	f.Req = cl.next
	cl.pending[f.Req] = ch
	cl.mu.Unlock()
	cl.wmu.Lock()
	err := writeFrame(cl.w, f, data)
	if err == nil {
		err = cl.w.Flush()
	}
	cl.wmu.Unlock()
	if err != nil {
		cl.breakAll(err)
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case r := <-ch:
		switch {
		case r.err != nil:
			return nil, cl.lost(f, r.err)
		case r.f.Failed:
			return nil, &Error{Op: r.f.Op, Code: r.f.Code, Detail: r.f.Detail}
		}
		return r.data, nil
	case <-t.C:
		cl.mu.Lock()
		delete(cl.pending, f.Req)
		cl.mu.Unlock()
		return nil, errorf(f.Type, RemoteError, "the soft rendezvous at %s did not answer within %v", cl.addr, wait)
	}
}

func (cl *hubClient) lost(f *frame, err error) error {
	return &Error{Op: "soft " + f.Type, Code: SystemError, Detail: "lost the connection to the soft rendezvous at " + cl.addr + " (has the process that made the UniqueID exited?)", Err: err}
}

// remoteRV is a communicator's rendezvous in another process.
type remoteRV struct {
	cl  *hubClient
	key commKey
}

// slack is how much longer than the rendezvous's own timeout a call waits
// for its answer.
const slack = 30 * time.Second

func (r remoteRV) join(rank, size int, timeout time.Duration) error {
	_, err := r.cl.call(&frame{Type: "join", Key: r.key, Rank: rank, Size: size, Timeout: timeout}, nil, timeout+slack)
	return err
}

func (r remoteRV) collective(rank int, seq uint64, d opDesc, in []byte, timeout time.Duration) ([]byte, error) {
	return r.cl.call(&frame{Type: "coll", Key: r.key, Rank: rank, Seq: seq, Desc: d, Timeout: timeout}, in, timeout+slack)
}

func (r remoteRV) send(src, dst int, seq uint64, d opDesc, data []byte) error {
	_, err := r.cl.call(&frame{Type: "send", Key: r.key, Rank: src, Peer: dst, Seq: seq, Desc: d}, data, slack)
	return err
}

func (r remoteRV) recv(src, dst int, seq uint64, d opDesc, timeout time.Duration) ([]byte, error) {
	return r.cl.call(&frame{Type: "recv", Key: r.key, Rank: dst, Peer: src, Seq: seq, Desc: d, Timeout: timeout}, nil, timeout+slack)
}

func (r remoteRV) leave(rank int, why string, abort bool) {
	r.cl.call(&frame{Type: "leave", Key: r.key, Rank: rank, Why: why, Abort: abort}, nil, slack)
}

func (r remoteRV) child(key commKey) rendezvous { return remoteRV{r.cl, key} }
