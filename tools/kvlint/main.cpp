#include "Driver.h"

int main(int argc, char **argv) {
  std::vector<std::string> Args(argv + 1, argv + argc);
  return kvlint::runDriver(Args);
}
