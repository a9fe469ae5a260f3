// A column: one of goheap's big arrays (one element per object, node or
// edge), either owned, as a std::vector, or a view of memory someone else
// keeps, such as a section of a mapped index file (cache/).
//
// Why not std::vector: a heap opened from the index cache must not copy its
// arrays out of the mapping. Copying a gigabyte into anonymous memory costs
// more page faults than the whole cached open may take, and doubles the
// memory. So every array a Snapshot keeps is a Column, and the code that
// reads it cannot tell the two apart.
//
// The reading API is std::vector's, and so is the building one (push_back,
// resize, assign...), which works on owned columns: on a view, a call that
// changes the size copies the view into an owned vector first. Element
// access through a non-const column returns a reference into the view
// itself; views are of memory mapped private and writable (the index
// file's), so a write stays in this process, but nothing writes to a
// finished Snapshot's columns.
//
// Whoever makes a view keeps its memory alive for as long as the column
// lives (the Snapshot holds the index file).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "util/large_vector.h"

namespace goheap {

template <class T>
class Column {
  static_assert(std::is_trivially_copyable_v<T>, "a column's bytes are stored as they are");

 public:
  using value_type = T;
  using size_type = size_t;
  using iterator = T*;
  using const_iterator = const T*;
  using reference = T&;
  using const_reference = const T&;

  Column() = default;
  // Implicit, so that a builder's vector becomes a column by assignment.
  Column(std::vector<T> v) noexcept : owned_(std::move(v)) { sync(); }  // NOLINT
  Column(std::initializer_list<T> init) : owned_(init) { sync(); }
  Column(size_t n, const T& value) : owned_(n, value) { sync(); }
  template <class It>
  Column(It first, It last) : owned_(first, last) {
    sync();
  }

  // A view of `elements`, which must outlive the column and its copies.
  static Column view(std::span<const T> elements) {
    Column c;
    c.data_ = const_cast<T*>(elements.data());
    c.size_ = elements.size();
    c.is_view_ = true;
    return c;
  }

  Column(const Column& other) : owned_(other.owned_), is_view_(other.is_view_) {
    if (is_view_) {
      data_ = other.data_;
      size_ = other.size_;
    } else {
      sync();
    }
  }
  Column(Column&& other) noexcept
      : owned_(std::move(other.owned_)),
        data_(other.data_),
        size_(other.size_),
        is_view_(other.is_view_) {
    other.reset();
  }
  Column& operator=(const Column& other) {
    if (this != &other) *this = Column(other);
    return *this;
  }
  Column& operator=(Column&& other) noexcept {
    if (this != &other) {
      owned_ = std::move(other.owned_);
      data_ = other.data_;
      size_ = other.size_;
      is_view_ = other.is_view_;
      other.reset();
    }
    return *this;
  }
  Column& operator=(std::vector<T> v) noexcept {
    owned_ = std::move(v);
    is_view_ = false;
    sync();
    return *this;
  }

  Column& operator=(std::initializer_list<T> init) { return *this = std::vector<T>(init); }

  bool isView() const { return is_view_; }
  // Anonymous memory the column holds: its vector's capacity; 0 for a view,
  // whose memory is a file's.
  uint64_t ownedBytes() const { return owned_.capacity() * sizeof(T); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T* data() const { return data_; }
  T* data() { return data_; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& operator[](size_t i) { return data_[i]; }
  const T& front() const { return data_[0]; }
  T& front() { return data_[0]; }
  const T& back() const { return data_[size_ - 1]; }
  T& back() { return data_[size_ - 1]; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* cbegin() const { return data_; }
  const T* cend() const { return data_ + size_; }
  std::span<const T> span() const { return {data_, size_}; }

  bool operator==(const Column& other) const {
    if (size_ != other.size_) return false;
    for (size_t i = 0; i < size_; ++i) {
      if (!(data_[i] == other.data_[i])) return false;
    }
    return true;
  }

  // Building: each works on the owned vector, copying a view into one first.
  size_t capacity() const { return is_view_ ? size_ : owned_.capacity(); }
  void reserve(size_t n) {
    own();
    owned_.reserve(n);
    sync();
  }
  void push_back(const T& value) {
    own();
    owned_.push_back(value);
    sync();
  }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    own();
    T& added = owned_.emplace_back(std::forward<Args>(args)...);
    sync();
    return added;
  }
  void pop_back() {
    own();
    owned_.pop_back();
    sync();
  }
  void resize(size_t n) {
    own();
    owned_.resize(n);
    sync();
  }
  void resize(size_t n, const T& value) {
    own();
    owned_.resize(n, value);
    sync();
  }
  void assign(size_t n, const T& value) {
    is_view_ = false;
    owned_.assign(n, value);
    sync();
  }
  template <class It>
  void assign(It first, It last) {
    std::vector<T> copy(first, last);  // the range may be this column's own view
    *this = std::move(copy);
  }
  template <class It>
  T* insert(const T* pos, It first, It last) {
    const size_t at = static_cast<size_t>(pos - data_);
    own();
    owned_.insert(owned_.begin() + static_cast<std::ptrdiff_t>(at), first, last);
    sync();
    // Not &*iterator: an empty range inserted into an empty column has no
    // element to refer to (UBSan in dump_reader_fuzz).
    return data_ + at;
  }
  void clear() {
    is_view_ = false;
    owned_.clear();
    sync();
  }
  void shrink_to_fit() {
    own();
    owned_.shrink_to_fit();
    sync();
  }
  void swap(Column& other) noexcept {
    Column t = std::move(other);
    other = std::move(*this);
    *this = std::move(t);
  }
  // The elements as a vector (copied from a view), leaving this column empty.
  std::vector<T> takeVector() {
    own();
    std::vector<T> out = std::move(owned_);
    reset();
    return out;
  }

  // util/large_vector.h's huge-page reservations, for columns.
  void reserveLarge(size_t n) {
    own();
    goheap::reserveLarge(owned_, n);
    sync();
  }
  void assignLarge(size_t n, const T& value) {
    is_view_ = false;
    goheap::assignLarge(owned_, n, value);
    sync();
  }
  void resizeLarge(size_t n) {
    own();
    goheap::resizeLarge(owned_, n);
    sync();
  }

 private:
  void sync() {
    data_ = owned_.data();
    size_ = owned_.size();
  }
  void own() {
    if (!is_view_) return;
    owned_.assign(data_, data_ + size_);
    is_view_ = false;
    sync();
  }
  void reset() {
    owned_.clear();
    data_ = nullptr;
    size_ = 0;
    is_view_ = false;
  }

  std::vector<T> owned_;
  T* data_ = nullptr;
  size_t size_ = 0;
  bool is_view_ = false;
};

template <class T>
void reserveLarge(Column<T>& c, size_t n) {
  c.reserveLarge(n);
}
template <class T>
void assignLarge(Column<T>& c, size_t n, const T& value) {
  c.assignLarge(n, value);
}
template <class T>
void resizeLarge(Column<T>& c, size_t n) {
  c.resizeLarge(n);
}

}  // namespace goheap
