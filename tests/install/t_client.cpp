// t_client.cpp - t_client.c's checks written as a C++17 client, built
// outside this tree only through an installed .mak fragment (GASNET_CXX,
// GASNET_CXXCPPFLAGS, GASNET_CXXFLAGS, linked with GASNET_CXX: see t-cxx.sh).
// It prints the same line per node as t_client.c, so the same check reads it.
// In GASNET_PAR mode the puts come from two std::threads at once, which the
// PAR library must accept.
#include <gasnet.h>

#include <array>
#include <cinttypes>
#include <cstdio>
#include <vector>
#if defined(GASNET_PAR)
#include <thread>
#endif

namespace {

constexpr std::size_t kWords = 4096, kAmBytes = 512;
constexpr gasnet_handler_t kData = 201, kSum = 202;

volatile int answered;
volatile std::uint32_t answer;

constexpr std::uint64_t pattern(gasnet_node_t r, std::uint64_t i)
{
  return (r + 1) * UINT64_C(0x100000001) + i;
}

std::uint32_t fnv1a(const unsigned char *p, std::size_t n)
{
  std::uint32_t h = 2166136261u;
  for (std::size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

void data_handler(gasnet_token_t token, void *buf, std::size_t nbytes)
{
  auto sum = fnv1a(static_cast<const unsigned char *>(buf), nbytes);
  gasnet_AMReplyShort1(token, kSum, static_cast<gasnet_handlerarg_t>(sum));
}

void sum_handler(gasnet_token_t, gasnet_handlerarg_t sum)
{
  answer = static_cast<std::uint32_t>(sum);
  answered = 1;
}

[[noreturn]] void fail(const char *what, std::uint64_t at, std::uint64_t want, std::uint64_t got)
{
  std::fprintf(stderr, "node %u: %s: word %" PRIu64 " is 0x%" PRIx64 ", expected 0x%" PRIx64 "\n",
               unsigned(gasnet_mynode()), what, at, got, want);
  gasnet_exit(3);
}

void barrier()
{
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  if (gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) != GASNET_OK) {
    std::fprintf(stderr, "node %u: barrier failed\n", unsigned(gasnet_mynode()));
    gasnet_exit(2);
  }
}

// Put words [from, to) of mine into the same place of node's segment.
void put_range(gasnet_node_t node, void *base, std::vector<std::uint64_t> &mine,
               std::size_t from, std::size_t to)
{
  gasnet_put(node, static_cast<std::uint64_t *>(base) + from, &mine[from],
             (to - from) * sizeof(std::uint64_t));
}

std::uint64_t check_put_get(const std::vector<gasnet_seginfo_t> &seg)
{
  const gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  const gasnet_node_t right = (me + 1) % n, left = (me + n - 1) % n;
  std::vector<std::uint64_t> mine(kWords), back(kWords);
  for (std::size_t i = 0; i < kWords; i++) mine[i] = pattern(me, i);

#if defined(GASNET_PAR)
  std::thread helper([&] { put_range(right, seg[right].addr, mine, kWords / 2, kWords); });
  put_range(right, seg[right].addr, mine, 0, kWords / 2);
  helper.join();
#else
  put_range(right, seg[right].addr, mine, 0, kWords);
#endif
  barrier();

  const auto *local = static_cast<const std::uint64_t *>(seg[me].addr);
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < kWords; i++) {
    if (local[i] != pattern(left, i)) fail("put from the left", i, pattern(left, i), local[i]);
    sum += local[i];
  }
  gasnet_get(back.data(), right, seg[right].addr, back.size() * sizeof back[0]);
  for (std::size_t i = 0; i < kWords; i++)
    if (back[i] != mine[i]) fail("get from the right", i, mine[i], back[i]);
  return sum;
}

std::uint32_t check_am()
{
  const gasnet_node_t me = gasnet_mynode(), right = (me + 1) % gasnet_nodes();
  std::array<unsigned char, kAmBytes> bytes;
  for (std::size_t i = 0; i < bytes.size(); i++) bytes[i] = static_cast<unsigned char>(me * 31 + i * 7);
  const auto want = fnv1a(bytes.data(), bytes.size());
  gasnet_AMRequestMedium0(right, kData, bytes.data(), bytes.size());
  GASNET_BLOCKUNTIL(answered);
  if (answer != want) fail("AM checksum", 0, want, answer);
  return want;
}

}  // namespace

int main(int argc, char **argv)
{
  gasnet_handlerentry_t handlers[] = {
    { kData, reinterpret_cast<void (*)()>(data_handler) },
    { kSum, reinterpret_cast<void (*)()>(sum_handler) },
  };
  if (gasnet_init(&argc, &argv) != GASNET_OK) return 1;
  if (gasnet_attach(handlers, 2, 2 * kWords * sizeof(std::uint64_t), 0) != GASNET_OK) gasnet_exit(1);

  const gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  std::vector<gasnet_seginfo_t> seg(n);
  if (gasnet_getSegmentInfo(seg.data(), int(n)) != GASNET_OK) gasnet_exit(1);

  const auto sum = check_put_get(seg);
  const auto amsum = check_am();
  std::printf("node %u/%u: put from node %u verified (%zu words, sum 0x%" PRIx64 "), get ok, "
              "AM round trip ok (%zu bytes, checksum 0x%08x)\n",
              unsigned(me), unsigned(n), unsigned((me + n - 1) % n), kWords, sum, kAmBytes,
              unsigned(amsum));
  std::fflush(stdout);
  barrier();
  gasnet_exit(0);
}
