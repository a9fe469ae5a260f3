// dwarforacle prints, as JSON, what Go's own debug/elf, debug/macho, debug/pe
// and debug/dwarf read from an executable's DWARF: type DIEs (name, tag, size,
// Go's attributes, fields, array counts, referenced types), global variables
// and the parameters and locals of functions, each variable's offset from
// the canonical frame address computed here from the raw location bytes.
// goheap's DWARF reader is tested against it (tests/bin/debug_info_test.cpp);
// it shares no code with goheap.
//
// To keep the output modest it lists the types reachable from package main
// plus every 10th other type, every global, the functions of package main
// and every 20th other function.
//
// usage: dwarforacle EXE > EXE.dwarf.json
package main

import (
	"bytes"
	"compress/zlib"
	"debug/dwarf"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
)

// Go's own attributes (cmd/internal/dwarf).
const (
	attrGoKind     dwarf.Attr = 0x2900
	attrGoKey      dwarf.Attr = 0x2901
	attrGoElem     dwarf.Attr = 0x2902
	attrGoEmbedded dwarf.Attr = 0x2903
	attrGoRuntime  dwarf.Attr = 0x2904
)

type field struct {
	Name     string `json:"name"`
	Offset   int64  `json:"offset"`
	Type     int64  `json:"type"` // DIE offset
	TypeName string `json:"type_name"`
	Embedded bool   `json:"embedded"`
}

type typ struct {
	Offset      int64   `json:"offset"`
	Name        string  `json:"name"`
	Tag         string  `json:"tag"`
	Size        int64   `json:"size"` // typedefs: their target's
	Kind        int64   `json:"kind"`
	Target      int64   `json:"target"` // DW_AT_type, -1 if none
	Elem        int64   `json:"elem"`   // DW_AT_go_elem, else DW_AT_type, else -1
	ElemName    string  `json:"elem_name"`
	Key         int64   `json:"key"` // DW_AT_go_key or -1
	Count       int64   `json:"count"`
	RuntimeType string  `json:"runtime_type"`
	Fields      []field `json:"fields"`
}

type global struct {
	Name    string `json:"name"`
	Address string `json:"address"`
	Type    int64  `json:"type"`
}

type variable struct {
	Name      string `json:"name"`
	Type      int64  `json:"type"`
	Param     bool   `json:"param"`
	Inlined   bool   `json:"inlined"`
	CfaOffset *int64 `json:"cfa_offset"` // null when not one fixed CFA offset
}

type function struct {
	Name   string     `json:"name"`
	LowPC  string     `json:"low_pc"`
	HighPC string     `json:"high_pc"`
	Vars   []variable `json:"vars"`
}

type output struct {
	Oracle     string     `json:"oracle"`
	TypeCount  int        `json:"type_count"`
	FuncCount  int        `json:"function_count"`
	Types      []typ      `json:"types"`
	Globals    []global   `json:"globals"`
	Functions  []function `json:"functions"`
	BigEndian  bool       `json:"big_endian"`
	PtrSize    int        `json:"ptr_size"`
	DwarfError string     `json:"dwarf_error,omitempty"`
}

type node struct {
	e        *dwarf.Entry
	children []*node
	version  int // of its unit
}

// exe is the DWARF of a file with the raw bytes of .debug_loc (DWARF 4) and
// .debug_loclists (DWARF 5), which debug/dwarf does not interpret.
type exe struct {
	d        *dwarf.Data
	loc      []byte
	loclists []byte
	order    binary.ByteOrder
	ptrSize  int
}

// rawSections sets x's raw location sections. data reads a section by its
// name, the bytes as they are in the file or nil when there is none; the
// plain and the "z" name (zlib-compressed, Go's older style) are tried with
// prefix ("." or "__").
func (x *exe) rawSections(prefix string, data func(name string) ([]byte, error)) error {
	for _, s := range []struct {
		suffix string
		to     *[]byte
	}{{"loc", &x.loc}, {"loclists", &x.loclists}} {
		for _, name := range []string{prefix + "debug_" + s.suffix, prefix + "zdebug_" + s.suffix} {
			raw, err := data(name)
			if err != nil {
				return err
			}
			if raw != nil {
				if *s.to, err = zlibHeader(raw); err != nil {
					return err
				}
				break
			}
		}
	}
	return nil
}

// inflate undoes Go's old-style "ZLIB" + big-endian size compression, or an
// ELF compression header when chdr says where the stream starts.
func inflate(b []byte, streamAt int, size uint64) ([]byte, error) {
	r, err := zlib.NewReader(bytes.NewReader(b[streamAt:]))
	if err != nil {
		return nil, err
	}
	out := make([]byte, size)
	if _, err := io.ReadFull(r, out); err != nil {
		return nil, err
	}
	return out, nil
}

func zlibHeader(b []byte) ([]byte, error) {
	if len(b) >= 12 && string(b[:4]) == "ZLIB" {
		return inflate(b, 12, binary.BigEndian.Uint64(b[4:12]))
	}
	return b, nil
}

func open(path string) (*exe, error) {
	if f, err := elf.Open(path); err == nil {
		d, err := f.DWARF()
		if err != nil {
			return nil, err
		}
		x := &exe{d: d, order: f.ByteOrder, ptrSize: 8}
		if f.Class == elf.ELFCLASS32 {
			x.ptrSize = 4
		}
		err = x.rawSections(".", func(name string) ([]byte, error) {
			s := f.Section(name)
			if s == nil {
				return nil, nil
			}
			// The raw bytes: a compressed section has no ReaderAt.
			raw := make([]byte, s.FileSize)
			file, err := os.Open(path)
			if err != nil {
				return nil, err
			}
			_, err = file.ReadAt(raw, int64(s.Offset))
			file.Close()
			if err != nil || s.Flags&elf.SHF_COMPRESSED == 0 || bytes.HasPrefix(raw, []byte("ZLIB")) {
				return raw, err
			}
			if x.ptrSize == 8 {
				return inflate(raw, 24, f.ByteOrder.Uint64(raw[8:]))
			}
			return inflate(raw, 12, uint64(f.ByteOrder.Uint32(raw[4:])))
		})
		return x, err
	}
	if f, err := pe.Open(path); err == nil {
		d, err := f.DWARF()
		if err != nil {
			return nil, err
		}
		x := &exe{d: d, order: binary.LittleEndian, ptrSize: 8}
		if _, ok := f.OptionalHeader.(*pe.OptionalHeader32); ok {
			x.ptrSize = 4
		}
		err = x.rawSections(".", func(name string) ([]byte, error) {
			s := f.Section(name)
			if s == nil {
				return nil, nil
			}
			raw, err := s.Data()
			if s.VirtualSize != 0 && int(s.VirtualSize) < len(raw) {
				raw = raw[:s.VirtualSize] // the rest pads to the file alignment
			}
			return raw, err
		})
		return x, err
	}
	f, err := macho.Open(path)
	if err != nil {
		return nil, errors.New("neither ELF, PE nor Mach-O")
	}
	d, err := f.DWARF()
	if err != nil {
		return nil, err
	}
	x := &exe{d: d, order: f.ByteOrder, ptrSize: 8}
	if f.Magic == macho.Magic32 {
		x.ptrSize = 4
	}
	err = x.rawSections("__", func(name string) ([]byte, error) {
		if s := f.Section(name); s != nil {
			return s.Data()
		}
		return nil, nil
	})
	return x, err
}

func tagName(t dwarf.Tag) string {
	switch t {
	case dwarf.TagBaseType:
		return "base"
	case dwarf.TagPointerType:
		return "pointer"
	case dwarf.TagStructType:
		return "struct"
	case dwarf.TagArrayType:
		return "array"
	case dwarf.TagTypedef:
		return "typedef"
	case dwarf.TagSubroutineType:
		return "subroutine"
	case dwarf.TagUnspecifiedType:
		return "unspecified"
	}
	return ""
}

func ref(e *dwarf.Entry, a dwarf.Attr) int64 {
	if o, ok := e.Val(a).(dwarf.Offset); ok {
		return int64(o)
	}
	return -1
}

func intVal(e *dwarf.Entry, a dwarf.Attr) int64 {
	switch v := e.Val(a).(type) {
	case int64:
		return v
	case uint64:
		return int64(v)
	}
	return 0
}

func sleb(b []byte) (int64, int) {
	var v int64
	var shift uint
	for i, c := range b {
		v |= int64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v, i + 1
		}
	}
	return 0, -1
}

func uleb(b []byte) (uint64, int) {
	var v uint64
	var shift uint
	for i, c := range b {
		v |= uint64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, -1
}

// cfaOffset recognises the expressions Go writes for an address a fixed
// distance from the CFA: DW_OP_call_frame_cfa [DW_OP_consts N DW_OP_plus |
// DW_OP_plus_uconst N], or DW_OP_fbreg N (Go's frame base is the CFA).
func cfaOffset(x []byte) (int64, bool) {
	const (
		opCFA       = 0x9c
		opConsts    = 0x11
		opPlus      = 0x22
		opPlusUcons = 0x23
		opFbreg     = 0x91
	)
	if len(x) == 0 {
		return 0, false
	}
	switch x[0] {
	case opCFA:
		if len(x) == 1 {
			return 0, true
		}
		if x[1] == opConsts {
			v, n := sleb(x[2:])
			if n > 0 && len(x) == 2+n+1 && x[2+n] == opPlus {
				return v, true
			}
		}
		if x[1] == opPlusUcons {
			v, n := uleb(x[2:])
			if n > 0 && len(x) == 2+n {
				return int64(v), true
			}
		}
	case opFbreg:
		v, n := sleb(x[1:])
		if n > 0 && len(x) == 1+n {
			return v, true
		}
	}
	return 0, false
}

// locListOffset is the CFA offset every entry of the DWARF 4 location list
// at off gives, when they agree.
func (x *exe) locListOffset(off int64, cfaBase bool) (int64, bool) {
	b := x.loc
	p := int(off)
	w := x.ptrSize
	word := func(at int) uint64 {
		if w == 8 {
			return x.order.Uint64(b[at:])
		}
		return uint64(x.order.Uint32(b[at:]))
	}
	maxAddr := ^uint64(0)
	if w == 4 {
		maxAddr = 0xffffffff
	}
	found, ok := false, true
	var value int64
	for p >= 0 && p+2*w <= len(b) {
		begin, end := word(p), word(p+w)
		p += 2 * w
		if begin == 0 && end == 0 {
			return value, found && ok
		}
		if begin == maxAddr {
			continue // base address selection
		}
		if p+2 > len(b) {
			return 0, false
		}
		n := int(x.order.Uint16(b[p:]))
		p += 2
		if p+n > len(b) {
			return 0, false
		}
		v, good := cfaOffset(b[p : p+n])
		good = good && (cfaBase || b[p] != 0x91)
		p += n
		if !good || (found && v != value) {
			ok = false
		}
		found, value = true, v
	}
	return 0, false
}

// locListsOffset is the same for the DWARF 5 location list at off of
// .debug_loclists (DW_LLE_* entries, section 7.7.3 of the standard).
func (x *exe) locListsOffset(off int64, cfaBase bool) (int64, bool) {
	b := x.loclists
	p := int(off)
	w := x.ptrSize
	next := func(n int) bool { p += n; return p <= len(b) }
	readUleb := func() bool {
		if p >= len(b) {
			return false
		}
		_, n := uleb(b[p:])
		return n > 0 && next(n)
	}
	found, ok := false, true
	var value int64
	for p >= 0 && p < len(b) {
		kind := b[p]
		p++
		var good bool
		switch kind {
		case 0x00: // end_of_list
			return value, found && ok
		case 0x01: // base_addressx
			good = readUleb()
			if !good {
				return 0, false
			}
			continue
		case 0x06: // base_address
			if !next(w) {
				return 0, false
			}
			continue
		case 0x02, 0x03, 0x04: // startx_endx, startx_length, offset_pair
			good = readUleb() && readUleb()
		case 0x05: // default_location
			good = true
		case 0x07: // start_end
			good = next(2 * w)
		case 0x08: // start_length
			good = next(w) && readUleb()
		default:
			return 0, false
		}
		if !good || p >= len(b) {
			return 0, false
		}
		n, k := uleb(b[p:])
		if k <= 0 || !next(k) || p+int(n) > len(b) {
			return 0, false
		}
		v, cfa := cfaOffset(b[p : p+int(n)])
		cfa = cfa && (cfaBase || (n > 0 && b[p] != 0x91))
		p += int(n)
		if !cfa || (found && v != value) {
			ok = false
		}
		found, value = true, v
	}
	return 0, false
}

// loclistxOffset turns a DW_FORM_loclistx index into its list's offset:
// the unit's offsets array starts at its DW_AT_loclists_base (32-bit DWARF,
// as Go writes it) and holds offsets from there.
func (x *exe) loclistxOffset(unit *dwarf.Entry, index int64) (int64, bool) {
	base, ok := unit.Val(dwarf.AttrLoclistsBase).(int64)
	at := base + 4*index
	if !ok || at < 0 || at+4 > int64(len(x.loclists)) {
		return 0, false
	}
	return base + int64(x.order.Uint32(x.loclists[at:])), true
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: dwarforacle EXE")
		os.Exit(2)
	}
	out := output{Oracle: runtime.Version(), Types: []typ{}, Globals: []global{}, Functions: []function{}}
	x, err := open(os.Args[1])
	if err != nil {
		// A file without DWARF: say so, for the test to check goheap agrees.
		out.DwarfError = err.Error()
		write(out)
		return
	}
	out.BigEndian = x.order == binary.BigEndian
	out.PtrSize = x.ptrSize

	// Every entry, as a tree of units.
	byOffset := map[dwarf.Offset]*node{}
	var units []*node
	var stack []*node
	r := x.d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			fail(err)
		}
		if e == nil {
			break
		}
		if e.Tag == 0 {
			stack = stack[:len(stack)-1]
			continue
		}
		n := &node{e: e}
		byOffset[e.Offset] = n
		if len(stack) == 0 {
			units = append(units, n)
		} else {
			stack[len(stack)-1].children = append(stack[len(stack)-1].children, n)
		}
		if e.Children {
			stack = append(stack, n)
		}
	}

	name := func(off int64) string {
		if n := byOffset[dwarf.Offset(off)]; n != nil {
			s, _ := n.e.Val(dwarf.AttrName).(string)
			return s
		}
		return ""
	}
	var size func(off int64, depth int) int64
	size = func(off int64, depth int) int64 {
		n := byOffset[dwarf.Offset(off)]
		if n == nil || depth > 100 {
			return 0
		}
		if n.e.Tag == dwarf.TagTypedef && n.e.Val(dwarf.AttrByteSize) == nil {
			return size(ref(n.e, dwarf.AttrType), depth+1)
		}
		return intVal(n.e, dwarf.AttrByteSize)
	}

	// Types, in DIE order.
	var all []*node
	var walk func(n *node)
	walk = func(n *node) {
		if tagName(n.e.Tag) != "" {
			all = append(all, n)
		}
		for _, c := range n.children {
			walk(c)
		}
	}
	for _, u := range units {
		walk(u)
	}
	out.TypeCount = len(all)

	// Globals: variables at unit level located by DW_OP_addr.
	wanted := map[int64]bool{}
	for _, u := range units {
		for _, c := range u.children {
			if c.e.Tag != dwarf.TagVariable {
				continue
			}
			loc, _ := c.e.Val(dwarf.AttrLocation).([]byte)
			if len(loc) != 1+x.ptrSize || loc[0] != 0x03 {
				continue
			}
			var addr uint64
			if x.ptrSize == 8 {
				addr = x.order.Uint64(loc[1:])
			} else {
				addr = uint64(x.order.Uint32(loc[1:]))
			}
			g := global{Name: name(int64(c.e.Offset)), Address: fmt.Sprintf("0x%x", addr), Type: ref(c.e, dwarf.AttrType)}
			out.Globals = append(out.Globals, g)
			if strings.HasPrefix(g.Name, "main.") {
				wanted[g.Type] = true
			}
		}
	}
	sort.SliceStable(out.Globals, func(i, j int) bool {
		var a, b uint64
		fmt.Sscanf(out.Globals[i].Address, "0x%x", &a)
		fmt.Sscanf(out.Globals[j].Address, "0x%x", &b)
		return a < b
	})

	// Functions: subprograms with code. A concrete instance of an inlinable
	// function takes its name, and its variables their names and types, from
	// the abstract DIE its DW_AT_abstract_origin names.
	origin := func(e *dwarf.Entry) *dwarf.Entry {
		if o := ref(e, dwarf.AttrAbstractOrigin); o >= 0 {
			if n := byOffset[dwarf.Offset(o)]; n != nil {
				return n.e
			}
		}
		return e
	}
	other := 0
	for _, u := range units {
		for _, c := range u.children {
			if c.e.Tag != dwarf.TagSubprogram {
				continue
			}
			low, ok := c.e.Val(dwarf.AttrLowpc).(uint64)
			if !ok {
				continue
			}
			var high uint64
			switch v := c.e.Val(dwarf.AttrHighpc).(type) {
			case uint64:
				high = v
			case int64:
				high = low + uint64(v)
			}
			out.FuncCount++
			o := origin(c.e)
			fname, _ := o.Val(dwarf.AttrName).(string)
			if !strings.HasPrefix(fname, "main.") {
				other++
				if other%20 != 0 {
					continue
				}
			}
			frameBase, _ := c.e.Val(dwarf.AttrFrameBase).([]byte)
			cfaBase := len(frameBase) == 1 && frameBase[0] == 0x9c
			f := function{Name: fname, LowPC: fmt.Sprintf("0x%x", low), HighPC: fmt.Sprintf("0x%x", high), Vars: []variable{}}
			var vars func(n *node, inlined bool)
			vars = func(n *node, inlined bool) {
				for _, v := range n.children {
					switch v.e.Tag {
					case dwarf.TagLexDwarfBlock:
						vars(v, inlined)
						continue
					case dwarf.TagInlinedSubroutine:
						vars(v, true)
						continue
					case dwarf.TagFormalParameter, dwarf.TagVariable:
					default:
						continue
					}
					vo := origin(v.e)
					nm, _ := vo.Val(dwarf.AttrName).(string)
					fv := variable{Name: nm, Type: ref(vo, dwarf.AttrType), Param: v.e.Tag == dwarf.TagFormalParameter, Inlined: inlined}
					switch loc := v.e.Val(dwarf.AttrLocation).(type) {
					case []byte:
						if off, ok := cfaOffset(loc); ok && (cfaBase || loc[0] != 0x91) {
							fv.CfaOffset = &off
						}
					case int64:
						var off int64
						var ok bool
						switch {
						case x.loclists == nil:
							off, ok = x.locListOffset(loc, cfaBase)
						case v.e.AttrField(dwarf.AttrLocation).Class == dwarf.ClassLocList:
							if at, found := x.loclistxOffset(u.e, loc); found {
								off, ok = x.locListsOffset(at, cfaBase)
							}
						default:
							off, ok = x.locListsOffset(loc, cfaBase)
						}
						if ok {
							fv.CfaOffset = &off
						}
					}
					if strings.HasPrefix(fname, "main.") {
						wanted[fv.Type] = true
					}
					f.Vars = append(f.Vars, fv)
				}
			}
			vars(c, false)
			out.Functions = append(out.Functions, f)
		}
	}

	// The types package main reaches, and every 10th of the rest.
	for _, n := range all {
		if strings.Contains(name(int64(n.e.Offset)), "main.") {
			wanted[int64(n.e.Offset)] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, n := range all {
			off := int64(n.e.Offset)
			if !wanted[off] {
				continue
			}
			refs := []int64{ref(n.e, dwarf.AttrType), ref(n.e, attrGoElem), ref(n.e, attrGoKey)}
			for _, c := range n.children {
				refs = append(refs, ref(c.e, dwarf.AttrType))
			}
			for _, t := range refs {
				if t >= 0 && !wanted[t] {
					wanted[t] = true
					changed = true
				}
			}
		}
	}
	for i, n := range all {
		off := int64(n.e.Offset)
		if !wanted[off] && i%10 != 0 {
			continue
		}
		e := n.e
		t := typ{Offset: off, Name: name(off), Tag: tagName(e.Tag), Kind: intVal(e, attrGoKind),
			Target: ref(e, dwarf.AttrType), Elem: ref(e, attrGoElem), Key: ref(e, attrGoKey), Fields: []field{}}
		t.Size = size(off, 0)
		if t.Elem < 0 {
			t.Elem = t.Target
		}
		t.ElemName = name(t.Elem)
		if rt, ok := e.Val(attrGoRuntime).(uint64); ok {
			t.RuntimeType = fmt.Sprintf("0x%x", rt)
		} else {
			t.RuntimeType = "0x0"
		}
		for _, c := range n.children {
			switch c.e.Tag {
			case dwarf.TagMember:
				fl := field{Name: name(int64(c.e.Offset)), Type: ref(c.e, dwarf.AttrType)}
				fl.TypeName = name(fl.Type)
				switch v := c.e.Val(dwarf.AttrDataMemberLoc).(type) {
				case int64:
					fl.Offset = v
				case []byte: // DW_OP_plus_uconst N
					if len(v) > 1 && v[0] == 0x23 {
						u, _ := uleb(v[1:])
						fl.Offset = int64(u)
					}
				}
				fl.Embedded, _ = c.e.Val(attrGoEmbedded).(bool)
				t.Fields = append(t.Fields, fl)
			case dwarf.TagSubrangeType:
				if c.e.Val(dwarf.AttrCount) != nil {
					t.Count = intVal(c.e, dwarf.AttrCount)
				} else if c.e.Val(dwarf.AttrUpperBound) != nil {
					t.Count = intVal(c.e, dwarf.AttrUpperBound) + 1
				}
			}
		}
		out.Types = append(out.Types, t)
	}
	write(out)
}

func write(out output) {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "dwarforacle:", err)
	os.Exit(1)
}
