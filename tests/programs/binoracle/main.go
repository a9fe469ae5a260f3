// binoracle prints, as JSON, what Go's own debug/elf (or debug/macho) and
// debug/gosym read from an executable's pclntab: every function (entry, end, name) and the
// file:line of a few PCs in each, and what debug/buildinfo reads from its
// build info. goheap's pclntab reader is tested against
// it (tests/bin/pclntab_test.cpp); it shares no code with goheap.
//
// usage: binoracle EXE > EXE.symtab.json
package main

import (
	"bytes"
	"debug/buildinfo"
	"debug/elf"
	"debug/gosym"
	"debug/macho"
	"debug/pe"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
)

type pcLine struct {
	PC   string `json:"pc"`
	File string `json:"file"`
	Line int    `json:"line"`
}

type function struct {
	Entry string   `json:"entry"`
	End   string   `json:"end"`
	Name  string   `json:"name"`
	PCs   []pcLine `json:"pcs"`
}

type symbol struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Size  uint64 `json:"size"`
}

type module struct {
	Path    string  `json:"path"`
	Version string  `json:"version"`
	Sum     string  `json:"sum"`
	Replace *module `json:"replace,omitempty"`
}

type setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// buildInfo is what debug/buildinfo.ReadFile says; absent when it fails
// (executables older than Go 1.13 carry no module information).
type buildInfo struct {
	GoVersion string    `json:"go_version"`
	Path      string    `json:"path"`
	Main      module    `json:"main"`
	Deps      []module  `json:"deps"`
	Settings  []setting `json:"settings"`
}

type output struct {
	Oracle    string     `json:"oracle"`
	TextStart string     `json:"text_start"`
	BuildInfo *buildInfo `json:"buildinfo,omitempty"`
	Funcs     []function `json:"funcs"`
	Symbols   []symbol   `json:"symbols"`
}

func moduleOf(m *debug.Module) module {
	out := module{Path: m.Path, Version: m.Version, Sum: m.Sum}
	if m.Replace != nil {
		r := moduleOf(m.Replace)
		out.Replace = &r
	}
	return out
}

func readBuildInfo(path string) *buildInfo {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return nil
	}
	out := &buildInfo{GoVersion: bi.GoVersion, Path: bi.Path, Main: moduleOf(&bi.Main),
		Deps: []module{}, Settings: []setting{}}
	for _, d := range bi.Deps {
		out.Deps = append(out.Deps, moduleOf(d))
	}
	for _, s := range bi.Settings {
		out.Settings = append(out.Settings, setting{s.Key, s.Value})
	}
	return out
}

func hex(v uint64) string { return fmt.Sprintf("0x%x", v) }

// readTables returns the text address, the pclntab and the (old) symtab of
// an ELF, PE or Mach-O file.
func readTables(path string) (uint64, []byte, []byte, error) {
	if f, err := elf.Open(path); err == nil {
		// A position-independent executable keeps the tables in relro.
		pcln, sym := ".gopclntab", ".gosymtab"
		if f.Section(pcln) == nil && f.Section(".data.rel.ro"+pcln) != nil {
			pcln, sym = ".data.rel.ro"+pcln, ".data.rel.ro"+sym
		}
		return tablesFromSections(".text", pcln, sym, func(name string) (uint64, func() ([]byte, error), bool) {
			s := f.Section(name)
			if s == nil {
				return 0, nil, false
			}
			return s.Addr, s.Data, true
		})
	}
	if f, err := pe.Open(path); err == nil {
		return readPE(f)
	}
	f, err := macho.Open(path)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("neither ELF, PE nor Mach-O: %v", err)
	}
	return tablesFromSections("__text", "__gopclntab", "__gosymtab", func(name string) (uint64, func() ([]byte, error), bool) {
		s := f.Section(name)
		if s == nil {
			return 0, nil, false
		}
		return s.Addr, s.Data, true
	})
}

// tablesFromSections reads the tables from named sections; `section` gives a
// section's address and a reader of its data, whatever the container.
func tablesFromSections(textName, pclnName, symName string,
	section func(string) (uint64, func() ([]byte, error), bool)) (uint64, []byte, []byte, error) {
	textAddr, _, okText := section(textName)
	_, pclnData, okPcln := section(pclnName)
	if !okText || !okPcln {
		return 0, nil, nil, fmt.Errorf("no %s or %s section", textName, pclnName)
	}
	data, err := pclnData()
	if err != nil {
		return 0, nil, nil, err
	}
	var sym []byte
	if _, symData, ok := section(symName); ok {
		sym, _ = symData()
	}
	return textAddr, data, sym, nil
}

// readPE finds the pclntab of a PE file, which has no section of its own:
// between the symbols runtime.pclntab and runtime.epclntab, or, in a stripped
// file, from the first Go 1.20+ magic in .rdata to the section's end (gosym
// ignores what follows the table).
func readPE(f *pe.File) (uint64, []byte, []byte, error) {
	var imageBase uint64
	switch oh := f.OptionalHeader.(type) {
	case *pe.OptionalHeader32:
		imageBase = uint64(oh.ImageBase)
	case *pe.OptionalHeader64:
		imageBase = oh.ImageBase
	}
	text := f.Section(".text")
	if text == nil {
		return 0, nil, nil, fmt.Errorf("no .text section")
	}
	textAddr := imageBase + uint64(text.VirtualAddress)
	var start, end *pe.Symbol
	for _, s := range f.Symbols {
		switch s.Name {
		case "runtime.pclntab":
			start = s
		case "runtime.epclntab":
			end = s
		}
	}
	if start != nil && end != nil && start.SectionNumber == end.SectionNumber && start.SectionNumber > 0 {
		data, err := f.Sections[start.SectionNumber-1].Data()
		if err != nil {
			return 0, nil, nil, err
		}
		return textAddr, data[start.Value:end.Value], nil, nil
	}
	rdata := f.Section(".rdata")
	if rdata == nil {
		return 0, nil, nil, fmt.Errorf("no pclntab symbols and no .rdata")
	}
	data, err := rdata.Data()
	if err != nil {
		return 0, nil, nil, err
	}
	for i := 0; i+8 <= len(data); i += 4 {
		if bytes.Equal(data[i:i+6], []byte{0xf1, 0xff, 0xff, 0xff, 0, 0}) {
			return textAddr, data[i:], nil, nil
		}
	}
	return 0, nil, nil, fmt.Errorf("no pclntab in .rdata")
}

// symbolsOf lists the symbol table in file order: ELF .symtab (without the
// null entry), Mach-O nlist entries (no sizes), PE COFF symbols (no auxiliary
// records) at their virtual addresses.
func symbolsOf(path string) []symbol {
	out := []symbol{}
	if f, err := elf.Open(path); err == nil {
		syms, _ := f.Symbols()
		for _, s := range syms {
			out = append(out, symbol{s.Name, hex(s.Value), s.Size})
		}
		return out
	}
	if f, err := pe.Open(path); err == nil {
		var imageBase uint64
		switch oh := f.OptionalHeader.(type) {
		case *pe.OptionalHeader32:
			imageBase = uint64(oh.ImageBase)
		case *pe.OptionalHeader64:
			imageBase = oh.ImageBase
		}
		for _, s := range f.Symbols {
			v := uint64(s.Value)
			if s.SectionNumber > 0 && int(s.SectionNumber) <= len(f.Sections) {
				v += imageBase + uint64(f.Sections[s.SectionNumber-1].VirtualAddress)
			}
			out = append(out, symbol{s.Name, hex(v), 0})
		}
		return out
	}
	if f, err := macho.Open(path); err == nil && f.Symtab != nil {
		for _, s := range f.Symtab.Syms {
			out = append(out, symbol{s.Name, hex(s.Value), 0})
		}
	}
	return out
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: binoracle EXE")
		os.Exit(2)
	}
	textAddr, pclnData, symData, err := readTables(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "binoracle:", err)
		os.Exit(1)
	}
	table, err := gosym.NewTable(symData, gosym.NewLineTable(pclnData, textAddr))
	if err != nil {
		fmt.Fprintln(os.Stderr, "binoracle:", err)
		os.Exit(1)
	}
	if len(table.Funcs) == 0 {
		// Go 1.19's gosym reads a Go 1.20+ table as an empty one: say so
		// rather than print an oracle that agrees with nothing.
		fmt.Fprintln(os.Stderr, "binoracle: gosym found no functions (pclntab layout too new for", runtime.Version()+"?)")
		os.Exit(1)
	}
	out := output{Oracle: runtime.Version(), TextStart: hex(textAddr), Symbols: symbolsOf(os.Args[1]),
		BuildInfo: readBuildInfo(os.Args[1])}
	for _, fn := range table.Funcs {
		rec := function{Entry: hex(fn.Entry), End: hex(fn.End), Name: fn.Name}
		// The entry, three points inside, and the last byte.
		size := fn.End - fn.Entry
		pcs := []uint64{fn.Entry}
		if size > 1 {
			pcs = append(pcs, fn.Entry+size/4, fn.Entry+size/2, fn.Entry+3*size/4, fn.End-1)
		}
		last := uint64(0)
		for i, pc := range pcs {
			if i > 0 && pc == last {
				continue
			}
			last = pc
			file, line, _ := table.PCToLine(pc)
			rec.PCs = append(rec.PCs, pcLine{PC: hex(pc), File: file, Line: line})
		}
		out.Funcs = append(out.Funcs, rec)
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "binoracle:", err)
		os.Exit(1)
	}
}
