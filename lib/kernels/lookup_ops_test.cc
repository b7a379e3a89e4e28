// Lookup tables: HashTable(V2), its initializers, Find, Size, Export, Import,
// and the text-file reader.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "lib/kernels/kernel_test_util.h"
#include "lib/kernels/text_table_reader.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using testing::KernelRun;
using testing::KernelTester;
using testing::MakeTensor;
using testing::Render;

// Kernels that share one ResourceMgr, as the nodes of one session do.
class Session {
 public:
  KernelRun Run(const std::string& node, std::initializer_list<Tensor> in) {
    auto t = KernelTester::Create(node);
    if (!t.ok()) return KernelRun{t.status(), {}};
    (*t)->services().resource_mgr = &rm_;
    return (*t)->Run(in);
  }
  ResourceMgr& rm() { return rm_; }

 private:
  ResourceMgr rm_;
};

std::string Table(const std::string& k, const std::string& v,
                  const std::string& extra = "") {
  return "name: 'table' op: 'HashTableV2' attr { key: 'key_dtype' value { "
         "type: " +
         k + " } } attr { key: 'value_dtype' value { type: " + v + " } } " +
         extra;
}

std::string TypedOp(const std::string& op, const std::string& a1,
                    const std::string& t1, const std::string& a2,
                    const std::string& t2) {
  return "name: 'n' op: '" + op + "' attr { key: '" + a1 +
         "' value { type: " + t1 + " } } attr { key: '" + a2 +
         "' value { type: " + t2 + " } }";
}

std::string Find(const std::string& k, const std::string& v) {
  return TypedOp("LookupTableFindV2", "Tin", k, "Tout", v);
}
std::string Init(const std::string& k, const std::string& v) {
  return TypedOp("InitializeTableV2", "Tkey", k, "Tval", v);
}

TEST_CASE("a HashTableV2 is filled once and then looked up", "[kernels]") {
  Session s;
  auto h = s.Run(Table("DT_STRING", "DT_INT64"), {});
  REQUIRE(h.status.ok());
  const Tensor handle = h.out(0);
  CHECK(handle.flat<ResourceHandle>()[0].maybe_type_name ==
        "N10tensorflow6lookup15LookupInterfaceE");
  const Tensor keys = MakeTensor<std::string>({2}, {"a", "b"});
  const Tensor query = MakeTensor<std::string>({2, 2}, {"b", "z", "a", "a"});
  auto early = s.Run(Find("DT_STRING", "DT_INT64"),
                     {handle, query, Tensor::Scalar<int64_t>(-1)});
  CHECK(early.status.code() == Code::kFailedPrecondition);
  CHECK_THAT(early.status.message(), Contains("Table not initialized."));
  REQUIRE(s.Run(Init("DT_STRING", "DT_INT64"),
                {handle, keys, MakeTensor<int64_t>({2}, {10, 20})})
              .status.ok());
  auto found = s.Run(Find("DT_STRING", "DT_INT64"),
                     {handle, query, Tensor::Scalar<int64_t>(-1)});
  REQUIRE(found.status.ok());
  CHECK(Render(found.out(0)) == "int64 [2,2] [[20 -1]\n [10 10]]");
  auto size = s.Run("name: 'n' op: 'LookupTableSizeV2'", {handle});
  CHECK(Render(size.out(0)) == "int64 [] 2");
  auto exported = s.Run(TypedOp("LookupTableExportV2", "Tkeys", "DT_STRING",
                                "Tvalues", "DT_INT64"),
                        {handle});
  REQUIRE(exported.status.ok());
  CHECK(Render(exported.out(0)) == "string [2] [\"a\" \"b\"]");
  CHECK(Render(exported.out(1)) == "int64 [2] [10 20]");
  // The same entries again: accepted; others: rejected.
  CHECK(s.Run(Init("DT_STRING", "DT_INT64"),
              {handle, keys, MakeTensor<int64_t>({2}, {10, 20})})
            .status.ok());
  auto again = s.Run(Init("DT_STRING", "DT_INT64"),
                     {handle, MakeTensor<std::string>({1}, {"c"}),
                      MakeTensor<int64_t>({1}, {1})});
  CHECK_THAT(again.status.message(),
             Contains("Table was already initialized with different data."));
}

TEST_CASE("table kernels report TensorFlow's errors", "[kernels]") {
  Session s;
  const Tensor handle = s.Run(Table("DT_INT64", "DT_FLOAT"), {}).out(0);
  auto dup = s.Run(Init("DT_INT64", "DT_FLOAT"),
                   {handle, MakeTensor<int64_t>({2}, {1, 1}),
                    MakeTensor<float>({2}, {1, 2})});
  CHECK(dup.status.code() == Code::kFailedPrecondition);
  CHECK_THAT(dup.status.message(),
             Contains("HashTable has different value for same key. Key 1 has "
                      "1 and trying to add value 2"));
  auto sizes = s.Run(
      Init("DT_INT64", "DT_FLOAT"),
      {handle, MakeTensor<int64_t>({2}, {1, 2}), MakeTensor<float>({1}, {1})});
  CHECK_THAT(sizes.status.message(),
             Contains("Keys and values must have the same size 2 vs 1"));
  auto sig = s.Run(
      Find("DT_STRING", "DT_FLOAT"),
      {handle, MakeTensor<std::string>({1}, {"x"}), Tensor::Scalar<float>(0)});
  CHECK_THAT(sig.status.message(),
             Contains("Signature mismatch, have: resource, string, "
                      "float->float expected: resource, int64, float->float"));
  ResourceHandle missing;
  missing.container = "localhost";
  missing.name = "nope";
  auto gone = s.Run("name: 'n' op: 'LookupTableSizeV2'",
                    {Tensor::Scalar<ResourceHandle>(missing)});
  CHECK(gone.status.code() == Code::kNotFound);
  CHECK_THAT(gone.status.message(),
             Contains("Resource localhost/nope/"
                      "N10tensorflow6lookup15LookupInterfaceE does not "
                      "exist."));
  auto clash = s.Run(Table("DT_INT64", "DT_INT64",
                           "attr { key: 'use_node_name_sharing' value { b: "
                           "true } }"),
                     {});
  CHECK(clash.status.ok());  // a different table: named by the node
  auto shared =
      s.Run(Table("DT_INT64", "DT_INT64",
                  "attr { key: 'shared_name' value { s: '_0_table' } }"),
            {});
  CHECK_THAT(shared.status.message(),
             Contains("Conflicting key/value dtypes int64->int64 with "
                      "int64-float for table _0_table"));
  auto pair = s.Run(Table("DT_INT32", "DT_BOOL"), {});
  CHECK_THAT(pair.status.message(),
             Contains("No OpKernel was registered to support Op "
                      "'HashTableV2'"));
}

TEST_CASE("the legacy HashTable hands out a (container, name) ref",
          "[kernels]") {
  Session s;
  auto t = KernelTester::Create(
      "name: 'legacy' op: 'HashTable' attr { key: 'key_dtype' value { type: "
      "DT_INT64 } } attr { key: 'value_dtype' value { type: DT_STRING } }");
  REQUIRE(t.ok());
  (*t)->services().resource_mgr = &s.rm();
  KernelRun run = (*t)->Run({});
  REQUIRE(run.status.ok());
  OpOutput& out = run.outputs[0];
  REQUIRE(out.is_ref());
  CHECK(Render(*out.ref) == "string [2] [\"localhost\" \"_0_legacy\"]");
  auto init = KernelTester::Create(
      TypedOp("InitializeTable", "Tkey", "DT_INT64", "Tval", "DT_STRING"));
  REQUIRE(init.ok());
  (*init)->services().resource_mgr = &s.rm();
  Tensor keys = MakeTensor<int64_t>({1}, {5});
  Tensor values = MakeTensor<std::string>({1}, {"five"});
  KernelRun done =
      (*init)->RunValues({TensorValue{out.ref, out.ref_mu}, TensorValue{&keys},
                          TensorValue{&values}});
  CHECK(done.status.ok());
}

class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    path_ = (std::filesystem::temp_directory_path() /
             ("dfg_vocab_" + std::to_string(::getpid()) + "_" +
              std::to_string(counter_++) + ".txt"))
                .string();
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::string path_;
};

TEST_CASE("a vocabulary file maps whole lines to line numbers", "[kernels]") {
  TempFile vocab("emerson\nlake\r\npalmer");
  TextTableOptions o;
  o.offset = 10;
  Tensor keys, values;
  REQUIRE(ReadTextTable(vocab.path(), o, &keys, &values).ok());
  CHECK(Render(keys) == "string [3] [\"emerson\" \"lake\" \"palmer\"]");
  CHECK(Render(values) == "int64 [3] [10 11 12]");
  o.vocab_size = 2;
  REQUIRE(ReadTextTable(vocab.path(), o, &keys, &values).ok());
  CHECK(keys.NumElements() == 2);
  o.vocab_size = 4;
  Status s = ReadTextTable(vocab.path(), o, &keys, &values);
  CHECK_THAT(s.message(), Contains("Invalid vocab_size in " + vocab.path() +
                                   ": expected 4 but got 3"));
}

TEST_CASE("a delimited file fills columns with TF's checks", "[kernels]") {
  TempFile file("a,1\nb,x\n");
  TextTableOptions o;
  o.delimiter = ',';
  o.key_index = 0;
  o.value_index = 1;
  Tensor keys, values;
  Status bad = ReadTextTable(file.path(), o, &keys, &values);
  CHECK_THAT(bad.message(),
             Contains("Field x in line 1 is not a valid int64."));
  o.value_index = 2;
  Status cols = ReadTextTable(file.path(), o, &keys, &values);
  CHECK_THAT(cols.message(),
             Contains("line 0 (a,1) : expected at least 3 got 2"));
  TempFile blank("a\n\nb\n");
  Status empty =
      ReadTextTable(blank.path(), TextTableOptions(), &keys, &values);
  CHECK_THAT(empty.message(), Contains("empty line found at position 3."));
  TextTableOptions by_number;
  by_number.key_index = TextTableOptions::kLineNumber;
  Status types = ReadTextTable(blank.path(), by_number, &keys, &values);
  CHECK_THAT(types.message(),
             Contains("Key index for line number requires table key dtype of "
                      "int64, got string"));
  Status missing = ReadTextTable("/nonexistent/vocab.txt", TextTableOptions(),
                                 &keys, &values);
  CHECK(missing.code() == Code::kNotFound);
}

TEST_CASE("InitializeTableFromTextFileV2 fills a table once", "[kernels]") {
  TempFile vocab("x\ny\n");
  Session s;
  const Tensor handle = s.Run(Table("DT_STRING", "DT_INT64"), {}).out(0);
  const std::string init =
      "name: 'init' op: 'InitializeTableFromTextFileV2' "
      "attr { key: 'key_index' value { i: -2 } } "
      "attr { key: 'value_index' value { i: -1 } }";
  const Tensor path = Tensor::Scalar<std::string>(vocab.path());
  REQUIRE(s.Run(init, {handle, path}).status.ok());
  REQUIRE(s.Run(init, {handle, path}).status.ok());  // already: fine
  auto found = s.Run(Find("DT_STRING", "DT_INT64"),
                     {handle, MakeTensor<std::string>({3}, {"y", "x", "w"}),
                      Tensor::Scalar<int64_t>(-1)});
  CHECK(Render(found.out(0)) == "int64 [3] [ 1  0 -1]");
  auto empty = s.Run(init, {handle, Tensor::Scalar<std::string>("")});
  CHECK_THAT(empty.status.message(), Contains("filename cannot be empty."));
  auto delim = s.Run(init + " attr { key: 'delimiter' value { s: ',,' } }",
                     {handle, path});
  CHECK_THAT(delim.status.message(),
             Contains("delimiter should be only 1 char"));
}

}  // namespace
}  // namespace dfg
