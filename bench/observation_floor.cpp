// The floor of a native observation encoder (docs/native_core.md): zero a
// float32 buffer of the 5-player observation's size and add 1.0 at W scattered
// positions, R times; prints the wall time of one observation.
//   g++ -O2 -o /tmp/observation_floor bench/observation_floor.cpp && /tmp/observation_floor [size] [writes]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 7131;
    const int w = argc > 2 ? std::atoi(argv[2]) : 350;
    const int rounds = 2000000;
    std::vector<float> obs(n);
    std::mt19937 gen(1);
    std::vector<int> where(w);
    for (auto& i : where) i = static_cast<int>(gen() % n);
    volatile float sink = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < rounds; r++) {
        std::memset(obs.data(), 0, n * sizeof(float));
        for (int k = 0; k < w; k++) obs[where[(k + r) % w]] += 1.0f;
        sink = sink + obs[r % n];
    }
    auto t1 = std::chrono::steady_clock::now();
    std::printf("%.3f us per observation (%d floats, %d writes)\n",
                std::chrono::duration<double, std::micro>(t1 - t0).count() / rounds, n, w);
    return 0;
}
