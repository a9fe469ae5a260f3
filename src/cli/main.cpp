#include <cstdio>

int main() {
  std::puts("goheap: under construction");
  return 0;
}
