#include "lib/io/npy.h"

#include <zlib.h>

#include <cstring>

#include "lib/io/zip.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;

std::string Fixture(const std::string& name) {
  return testing::ReadFileOrDie(testing::SourceDir() + "/testdata/npy/" + name);
}

NpyArray Load(const std::string& name) {
  auto array = ParseNpy(Fixture(name), name);
  INFO(array.status().ToString());
  REQUIRE(array.ok());
  return std::move(array).value();
}

template <typename T>
std::vector<T> Values(const NpyArray& array) {
  REQUIRE(array.data.size() % sizeof(T) == 0);
  std::vector<T> out(array.data.size() / sizeof(T));
  std::memcpy(out.data(), array.data.data(), array.data.size());
  return out;
}

std::string Header(std::string dict) {
  // A v1 file with the given header dict and no data.
  dict += '\n';
  std::string out = "\x93NUMPY\x01";
  out.push_back('\0');
  out.push_back(static_cast<char>(dict.size() & 0xff));
  out.push_back(static_cast<char>(dict.size() >> 8));
  return out + dict;
}

TEST_CASE("npy reads numpy's little-endian C-order floats", "[io][npy]") {
  NpyArray a = Load("f32_2x3.npy");
  CHECK(a.dtype == tensorflow::DT_FLOAT);
  CHECK(a.shape == std::vector<int64_t>{2, 3});
  CHECK(a.num_elements() == 6);
  CHECK(Values<float>(a) == std::vector<float>{0, 0.25, 0.5, 0.75, 1, 1.25});
}

TEST_CASE("npy converts big-endian data to little-endian", "[io][npy]") {
  NpyArray a = Load("f64_big_endian.npy");
  CHECK(a.dtype == tensorflow::DT_DOUBLE);
  CHECK(Values<double>(a) == std::vector<double>{1.5, -2.25, 3e300});
  NpyArray c = Load("c128_big_endian.npy");
  CHECK(c.dtype == tensorflow::DT_COMPLEX128);
  CHECK(Values<double>(c) == std::vector<double>{1, 2});
}

TEST_CASE("npy converts Fortran order to C order", "[io][npy]") {
  NpyArray a = Load("i32_fortran_2x3x2.npy");
  CHECK(a.dtype == tensorflow::DT_INT32);
  CHECK(a.shape == std::vector<int64_t>{2, 3, 2});
  CHECK(Values<int32_t>(a) ==
        std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  NpyArray b = Load("i16_big_endian_fortran.npy");
  CHECK(b.dtype == tensorflow::DT_INT16);
  CHECK(Values<int16_t>(b) == std::vector<int16_t>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("npy maps numpy dtypes to TensorFlow dtypes", "[io][npy]") {
  CHECK(Load("u16_v2.npy").dtype == tensorflow::DT_UINT16);
  CHECK(Values<uint16_t>(Load("u16_v2.npy")) ==
        std::vector<uint16_t>{1, 65535});
  NpyArray b = Load("bool_scalar.npy");
  CHECK(b.dtype == tensorflow::DT_BOOL);
  CHECK(b.shape.empty());
  CHECK(b.data == std::string(1, '\x01'));
  NpyArray h = Load("f16.npy");
  CHECK(h.dtype == tensorflow::DT_HALF);
  CHECK(Values<uint16_t>(h) == std::vector<uint16_t>{0x3c00, 0xb800, 0x7bff});
  NpyArray c = Load("c64.npy");
  CHECK(c.dtype == tensorflow::DT_COMPLEX64);
  CHECK(Values<float>(c) == std::vector<float>{1, 2, 0, -3.5});
  NpyArray u = Load("u64.npy");
  CHECK(u.dtype == tensorflow::DT_UINT64);
  CHECK(Values<uint64_t>(u) == std::vector<uint64_t>{~uint64_t{0}, 7});
  NpyArray e = Load("empty_0x3.npy");
  CHECK(e.dtype == tensorflow::DT_INT64);
  CHECK(e.shape == std::vector<int64_t>{0, 3});
  CHECK(e.data.empty());
}

TEST_CASE("npy reads byte strings and UTF-32 unicode as strings", "[io][npy]") {
  NpyArray s = Load("bytes_S.npy");
  CHECK(s.dtype == tensorflow::DT_STRING);
  CHECK(s.strings == std::vector<std::string>{"ab", "", "xyz"});
  NpyArray u = Load("unicode_U_v3.npy");
  CHECK(u.dtype == tensorflow::DT_STRING);
  CHECK(u.strings == std::vector<std::string>{"h\xc3\xa9",
                                              "\xe6\x97\xa5\xe6\x9c\xac",
                                              "\xf0\x9f\x98\x80"});
  NpyArray b = Load("unicode_U_big_endian.npy");
  CHECK(b.strings == std::vector<std::string>{"ok", "\xc3\xbc"});
}

TEST_CASE("npy refuses object arrays with a clean error", "[io][npy]") {
  auto a = ParseNpy(Fixture("object.npy"), "object.npy");
  REQUIRE_FALSE(a.ok());
  CHECK(a.status().code() == Code::kInvalidArgument);
  CHECK_THAT(a.status().message(), Contains("object.npy: object arrays"));
}

TEST_CASE("npy validates the header strictly", "[io][npy]") {
  auto error = [](const std::string& bytes) {
    auto a = ParseNpy(bytes, "x.npy");
    REQUIRE_FALSE(a.ok());
    CHECK(a.status().code() == Code::kInvalidArgument);
    return a.status().message();
  };
  CHECK_THAT(error("not numpy at all"), Contains("x.npy: not a .npy file"));
  CHECK_THAT(error(""), Contains("bad magic"));
  std::string big = "\x93NUMPY\x02";
  big += std::string("\0\0\0\0\x01", 5);
  CHECK_THAT(error(big), Contains("larger than"));
  CHECK_THAT(error(Header("{'descr': '<f4', 'shape': (), }")),
             Contains("needs 'descr', 'fortran_order' and 'shape'"));
  CHECK_THAT(error(Header("{'descr': '<f4', 'descr': '<f4', "
                          "'fortran_order': False, 'shape': (), }")),
             Contains("appears twice"));
  CHECK_THAT(error(Header("{'descr': '<f4', 'fortran_order': False, "
                          "'shape': (), 'extra': 1}")),
             Contains("unknown key 'extra'"));
  CHECK_THAT(error(Header("{'descr': '<f4', 'fortran_order': False, "
                          "'shape': (), } junk")),
             Contains("unexpected text"));
  CHECK_THAT(error(Header("{'descr': '<f4', 'fortran_order': 0, 'shape': ()}")),
             Contains("True or False"));
  CHECK_THAT(error(Header("{'descr': '<f4', 'fortran_order': False, "
                          "'shape': (-1,)}")),
             Contains("non-negative"));
  CHECK_THAT(error(Header("{'descr': '<f4', 'fortran_order': False, "
                          "'shape': (3)}")),
             Contains("trailing comma"));
  CHECK_THAT(error(Header("{'descr': '<f4', 'fortran_order': False, "
                          "'shape': (4294967296, 4294967296)}")),
             Contains("too large"));
  CHECK_THAT(error(Header("{'descr': '<f4', 'fortran_order': False, "
                          "'shape': (99999999999999999999,)}")),
             Contains("overflows"));
  CHECK_THAT(error(Header("{'descr': [('a', '<f4')], 'fortran_order': False, "
                          "'shape': ()}")),
             Contains("structured dtypes"));
  CHECK_THAT(error(Header("{'descr': '<M8', 'fortran_order': False, "
                          "'shape': ()}")),
             Contains("unsupported dtype '<M8'"));
  CHECK_THAT(error(Header("{'descr': '<f4', 'fortran_order': False, "
                          "'shape': (2,)}")),
             Contains("has 0 bytes of data; dtype and shape need 8"));
}

TEST_CASE("npy errors name the file on truncated data", "[io][npy]") {
  std::string bytes = Fixture("f32_2x3.npy");
  auto a = ParseNpy(bytes.substr(0, bytes.size() - 3), "m.npy");
  REQUIRE_FALSE(a.ok());
  CHECK_THAT(a.status().message(), Contains("m.npy: has 21 bytes of data"));
}

TEST_CASE("npz reads stored, deflated and zip64 archives", "[io][npz]") {
  auto stored = ParseNpz(Fixture("stored.npz"), "stored.npz");
  REQUIRE(stored.ok());
  REQUIRE(stored->size() == 2);
  CHECK((*stored)[0].first == "a");
  CHECK((*stored)[0].second.shape == std::vector<int64_t>{2, 3});
  CHECK((*stored)[1].first == "b");
  CHECK(Values<int64_t>((*stored)[1].second) == std::vector<int64_t>{1, 2});

  auto deflated = ParseNpz(Fixture("deflated.npz"), "deflated.npz");
  REQUIRE(deflated.ok());
  REQUIRE(deflated->size() == 2);
  CHECK((*deflated)[0].first == "x");
  CHECK(Values<double>((*deflated)[0].second).at(99) == 99.0);
  CHECK((*deflated)[1].second.strings == std::vector<std::string>{"p", "q"});

  auto local = ParseNpz(Fixture("zip64_local.npz"), "zip64_local.npz");
  REQUIRE(local.ok());
  CHECK((*local)[0].second.data == std::string("\x03\x04", 2));
  auto full = ParseNpz(Fixture("zip64_full.npz"), "zip64_full.npz");
  REQUIRE(full.ok());
  CHECK((*full)[0].first == "w");
  CHECK(Values<float>((*full)[0].second) == std::vector<float>{1, 2});
}

TEST_CASE("npz checks CRC, truncation and the member's own header",
          "[io][npz]") {
  std::string bytes = Fixture("stored.npz");
  size_t data = bytes.find("\x93NUMPY");
  REQUIRE(data != std::string::npos);
  std::string corrupt = bytes;
  corrupt[data + 140] ^= 0x55;
  auto a = ParseNpz(corrupt, "c.npz");
  REQUIRE_FALSE(a.ok());
  CHECK_THAT(a.status().message(), Contains("c.npz: member 'a.npy': CRC-32"));
  auto b = ParseNpz(bytes.substr(0, bytes.size() / 2), "t.npz");
  REQUIRE_FALSE(b.ok());
  CHECK_THAT(b.status().message(), Contains("t.npz: not a zip file"));
  auto c = ParseNpz("PK\x05\x06", "short.npz");
  REQUIRE_FALSE(c.ok());
  CHECK_THAT(c.status().message(), Contains("short.npz"));
}

void PutLe(std::string* out, uint64_t value, int size) {
  for (int i = 0; i < size; ++i)
    out->push_back(static_cast<char>(i < 8 ? value >> 8 * i : 0));
}

// A one-member archive of `data` deflated, as zip tools write it.
std::string DeflatedZip(const std::string& name, const std::string& data) {
  uLongf packed_size = compressBound(data.size());
  std::string packed(packed_size, '\0');
  z_stream z{};
  REQUIRE(deflateInit2(&z, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) ==
          Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(packed.data());
  z.avail_out = static_cast<uInt>(packed.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  packed.resize(z.total_out);
  deflateEnd(&z);
  uint32_t crc = crc32(0, reinterpret_cast<const Bytef*>(data.data()),
                       static_cast<uInt>(data.size()));
  auto common = [&](std::string* out) {
    PutLe(out, 20, 2);  // version needed
    PutLe(out, 0, 2);   // flags
    PutLe(out, 8, 2);   // deflate
    PutLe(out, 0, 4);   // time, date
    PutLe(out, crc, 4);
    PutLe(out, packed.size(), 4);
    PutLe(out, data.size(), 4);
    PutLe(out, name.size(), 2);
    PutLe(out, 0, 2);  // extra
  };
  std::string out;
  PutLe(&out, 0x04034b50, 4);
  common(&out);
  out += name + packed;
  std::string central;
  PutLe(&central, 0x02014b50, 4);
  PutLe(&central, 20, 2);  // made by
  common(&central);
  PutLe(&central, 0, 10);  // comment, disk, attributes
  PutLe(&central, 0, 4);   // local header offset
  central += name;
  size_t central_offset = out.size();
  out += central;
  PutLe(&out, 0x06054b50, 4);
  PutLe(&out, 0, 4);
  PutLe(&out, 1, 2);
  PutLe(&out, 1, 2);
  PutLe(&out, central.size(), 4);
  PutLe(&out, central_offset, 4);
  PutLe(&out, 0, 2);
  return out;
}

TEST_CASE("npz refuses members that share bytes before inflating any",
          "[io][npz]") {
  // 31 directory entries over one deflate stream of 4 MB of zeros.
  std::string bomb = testing::ReadFileOrDie(
      testing::SourceDir() + "/testdata/golden/run/err_npz_bomb/bomb.npz");
  auto arrays = ParseNpz(bomb, "bomb.npz");
  REQUIRE_FALSE(arrays.ok());
  CHECK(arrays.status().message() ==
        "bomb.npz: members 'a0.npy' and 'a1.npy' overlap");
}

TEST_CASE("npz checks a member's size against its .npy header first",
          "[io][npz]") {
  // A header for ten floats, then 4 MB: inflating it is not needed to
  // know it is wrong.
  std::string npy =
      *SerializeNpy({tensorflow::DT_FLOAT, {10}, std::string(40, '\0'), {}});
  std::string zip = DeflatedZip("x.npy", npy + std::string(4 << 20, '\0'));
  auto arrays = ParseNpz(zip, "big.npz");
  REQUIRE_FALSE(arrays.ok());
  CHECK(arrays.status().message() ==
        fmt::format("big.npz:x: the archive declares {} bytes; the .npy "
                    "header needs {}",
                    npy.size() + (4 << 20), npy.size()));
  // The same check passes a well-formed member of that size.
  NpyArray big{tensorflow::DT_FLOAT, {1 << 20}, std::string(4 << 20, '\0'), {}};
  auto ok = ParseNpz(DeflatedZip("y.npy", *SerializeNpy(big)), "ok.npz");
  REQUIRE(ok.ok());
  CHECK(ok->at(0).second.shape == std::vector<int64_t>{1 << 20});
}

TEST_CASE("npz refuses two members of one name", "[io][npz]") {
  std::string a =
      *SerializeNpy({tensorflow::DT_FLOAT, {1}, std::string(4, '\0'), {}});
  auto twice = ParseNpz(io_internal::WriteZip({{"a.npy", a}, {"a.npy", a}}),
                        "twice.npz");
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.status().message() == "twice.npz: two members named 'a.npy'");
  // np.load strips ".npy": "a" and "a.npy" are both its key "a".
  auto keys =
      ParseNpz(io_internal::WriteZip({{"a.npy", a}, {"a", a}}), "keys.npz");
  REQUIRE_FALSE(keys.ok());
  CHECK(keys.status().message() == "keys.npz: two members named 'a'");
}

TEST_CASE("npy writes what it reads, 64-byte aligned", "[io][npy]") {
  NpyArray a = Load("i32_fortran_2x3x2.npy");
  auto bytes = SerializeNpy(a);
  REQUIRE(bytes.ok());
  size_t header = static_cast<uint8_t>((*bytes)[8]) |
                  static_cast<size_t>(static_cast<uint8_t>((*bytes)[9])) << 8;
  CHECK((10 + header) % 64 == 0);
  CHECK_THAT(*bytes, Contains("{'descr': '<i4', 'fortran_order': False, "
                              "'shape': (2, 3, 2), }"));
  auto back = ParseNpy(*bytes, "back");
  REQUIRE(back.ok());
  CHECK(back->dtype == a.dtype);
  CHECK(back->shape == a.shape);
  CHECK(back->data == a.data);
}

TEST_CASE("npy writes strings as unicode, or bytes when not UTF-8",
          "[io][npy]") {
  NpyArray u;
  u.dtype = tensorflow::DT_STRING;
  u.shape = {2};
  u.strings = {"h\xc3\xa9", "abc"};
  auto bytes = SerializeNpy(u);
  REQUIRE(bytes.ok());
  CHECK_THAT(*bytes, Contains("'descr': '<U3'"));
  auto back = ParseNpy(*bytes, "u");
  REQUIRE(back.ok());
  CHECK(back->strings == u.strings);

  u.strings = {"\xff\xfe", "x"};
  bytes = SerializeNpy(u);
  REQUIRE(bytes.ok());
  CHECK_THAT(*bytes, Contains("'descr': '|S2'"));
  back = ParseNpy(*bytes, "s");
  REQUIRE(back.ok());
  CHECK(back->strings == u.strings);
}

TEST_CASE("npy refuses dtypes numpy has no name for", "[io][npy]") {
  NpyArray a;
  a.dtype = tensorflow::DT_BFLOAT16;
  a.shape = {1};
  a.data = std::string(2, '\0');
  auto bytes = SerializeNpy(a);
  REQUIRE_FALSE(bytes.ok());
  CHECK_THAT(bytes.status().message(), Contains("no .npy equivalent"));
  a.dtype = tensorflow::DT_FLOAT;
  CHECK_FALSE(SerializeNpy(a).ok());  // 2 bytes for one float
}

TEST_CASE("npz round-trips through its own writer", "[io][npz]") {
  NpyArray x;
  x.dtype = tensorflow::DT_INT8;
  x.shape = {3};
  x.data = std::string("\x01\x02\x03", 3);
  NpyArray s;
  s.dtype = tensorflow::DT_STRING;
  s.shape = {};
  s.strings = {"hello"};
  auto bytes = SerializeNpz({{"x", x}, {"dir/s", s}});
  REQUIRE(bytes.ok());
  auto back = ParseNpz(*bytes, "rt.npz");
  REQUIRE(back.ok());
  REQUIRE(back->size() == 2);
  CHECK((*back)[0].first == "x");
  CHECK((*back)[0].second.data == x.data);
  CHECK((*back)[1].first == "dir/s");
  CHECK((*back)[1].second.strings == s.strings);
}

}  // namespace
}  // namespace dfg
