// The FERRY_* registry: every knob is well-formed, defaults parse, bad values are rejected
// with the variable's name, unknown names draw a warning with a suggestion.
#include <gtest/gtest.h>

#include <set>

#include "platform/config.h"

namespace ferry {
namespace {

Result<Config> load(std::vector<std::string> env) { return Config::fromEntries(env); }

TEST(ConfigTable, ShmemNamesAreTakenAndOthersLeftAlone) {
  auto cfg = load({"SHMEM_SYMMETRIC_SIZE=64M", "SHMEM_OFI_PROVIDER=tcp", "SHMEM_DEBUG=1"});
  ASSERT_TRUE(cfg.isOk()) << cfg.status().message();
  EXPECT_EQ(cfg->size(Knob::ShmemSymmetricSize), 64u << 20);
  EXPECT_TRUE(cfg->flag(Knob::ShmemDebug));
  EXPECT_TRUE(cfg->warnings().empty());  // another library's SHMEM_* name is not ours to warn about
  auto bad = load({"SHMEM_SYMMETRIC_SIZE=lots"});
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.status().message().find("SHMEM_SYMMETRIC_SIZE"), std::string::npos) << bad.status().message();
}

TEST(ConfigTable, EveryKnobIsWellFormed) {
  std::set<std::string> names;
  for (const auto& k : knobTable()) {
    // FERRY_*, or one of the OpenSHMEM standard's own SHMEM_* names.
    std::string name = k.name;
    EXPECT_TRUE(name.rfind("FERRY_", 0) == 0 || name.rfind("SHMEM_", 0) == 0) << k.name;
    EXPECT_TRUE(names.insert(k.name).second) << "duplicate " << k.name;
    EXPECT_GT(std::string(k.help).size(), 20u) << k.name << " needs help text";
    Config::Value v;
    EXPECT_TRUE(parseKnobValue(k, k.defaultValue, v).isOk()) << k.name << " default '" << k.defaultValue << "'";
    if (k.type == KnobType::Enum) {
      EXPECT_NE(k.choices, nullptr) << k.name;
    }
  }
}

TEST(Config, DefaultsApplyWithoutEnvironment) {
  auto cfg = load({});
  ASSERT_TRUE(cfg.isOk());
  EXPECT_DOUBLE_EQ(cfg->seconds(Knob::Timeout), 30.0);
  EXPECT_EQ(cfg->size(Knob::EagerLimit), 8192u);
  EXPECT_EQ(cfg->integer(Knob::VirtualNodes), 1);
  EXPECT_FALSE(cfg->flag(Knob::Rank0Devices));
  EXPECT_TRUE(cfg->isAll(Knob::GpusPerRank));
  EXPECT_FALSE(cfg->isSet(Knob::Timeout));
}

TEST(Config, TheDebuggingTimeoutOfTheUserGuideIsAccepted) {
  auto cfg = load({"FERRY_TIMEOUT=1h"});
  ASSERT_TRUE(cfg.isOk()) << cfg.status().message();
  EXPECT_DOUBLE_EQ(cfg->seconds(Knob::Timeout), 3600.0);
  auto tooLong = load({"FERRY_TIMEOUT=25h"});
  ASSERT_FALSE(tooLong.isOk());
  EXPECT_NE(tooLong.status().message().find("to 86400 s"), std::string::npos) << tooLong.status().message();
}

TEST(Config, ParsesEachType) {
  auto cfg = load({"FERRY_TIMEOUT=250ms", "FERRY_CHUNK_SIZE=4M", "FERRY_VIRTUAL_NODES=3", "FERRY_RANK0_DEVICES=yes",
                   "FERRY_SHM=off", "FERRY_GPUS_PER_RANK=2", "PATH=/usr/bin"});
  ASSERT_TRUE(cfg.isOk()) << cfg.status().message();
  EXPECT_DOUBLE_EQ(cfg->seconds(Knob::Timeout), 0.25);
  EXPECT_EQ(cfg->size(Knob::ChunkSize), 4u << 20);
  EXPECT_EQ(cfg->integer(Knob::VirtualNodes), 3);
  EXPECT_TRUE(cfg->flag(Knob::Rank0Devices));
  EXPECT_EQ(cfg->text(Knob::Shm), "off");
  EXPECT_EQ(cfg->integer(Knob::GpusPerRank), 2);
  EXPECT_TRUE(cfg->isSet(Knob::Timeout));
}

TEST(Config, RejectsBadValuesNamingTheVariable) {
  struct Case { const char* entry; const char* name; };
  for (Case c : {Case{"FERRY_TIMEOUT=soon", "FERRY_TIMEOUT"}, Case{"FERRY_TIMEOUT=-1s", "FERRY_TIMEOUT"},
                 Case{"FERRY_VIRTUAL_NODES=0", "FERRY_VIRTUAL_NODES"}, Case{"FERRY_VIRTUAL_NODES=2x", "FERRY_VIRTUAL_NODES"},
                 Case{"FERRY_EAGER_LIMIT=1G", "FERRY_EAGER_LIMIT"}, Case{"FERRY_SHM=maybe", "FERRY_SHM"},
                 Case{"FERRY_RANK0_DEVICES=2", "FERRY_RANK0_DEVICES"}, Case{"FERRY_CHUNK_SIZE=", "FERRY_CHUNK_SIZE"},
                 Case{"FERRY_DEVICES_PER_RANK=5", "FERRY_DEVICES_PER_RANK"}, Case{"FERRY_LOG=bogus", "FERRY_LOG"},
                 Case{"FERRY_LOG=info,nosuch", "FERRY_LOG"}}) {
    auto cfg = load({c.entry});
    ASSERT_FALSE(cfg.isOk()) << c.entry;
    EXPECT_EQ(cfg.status().code(), Errc::InvalidArgument);
    EXPECT_NE(cfg.status().message().find(c.name), std::string::npos) << cfg.status().message();
    EXPECT_NE(cfg.status().message().find("expected"), std::string::npos) << cfg.status().message();
  }
}

TEST(Config, ReportsEveryBadVariableAtOnce) {
  auto cfg = load({"FERRY_TIMEOUT=x", "FERRY_SHM=y"});
  ASSERT_FALSE(cfg.isOk());
  EXPECT_NE(cfg.status().message().find("FERRY_TIMEOUT"), std::string::npos);
  EXPECT_NE(cfg.status().message().find("FERRY_SHM"), std::string::npos);
}

// What `ferry info --config` and the process-wide configuration show: an invalid value keeps
// its default and its text and error, while the valid ones and the warnings stay in effect.
TEST(Config, ParseKeepsTheValidValuesAndEachInvalidOnesText) {
  std::vector<std::string> env = {"FERRY_CHUNK_SIZE=2M", "FERRY_VIRTUAL_NODES=two", "FERRY_TIMOUT=5s"};
  Config cfg = Config::parse(env);
  EXPECT_FALSE(cfg.status().isOk());
  EXPECT_NE(cfg.status().message().find("FERRY_VIRTUAL_NODES='two' is invalid"), std::string::npos)
      << cfg.status().message();
  EXPECT_EQ(cfg.size(Knob::ChunkSize), 2u << 20);
  EXPECT_TRUE(cfg.isSet(Knob::ChunkSize));
  EXPECT_TRUE(cfg.error(Knob::ChunkSize).empty());
  EXPECT_EQ(cfg.rawText(Knob::ChunkSize), "2M");
  EXPECT_FALSE(cfg.isSet(Knob::VirtualNodes));
  EXPECT_EQ(cfg.integer(Knob::VirtualNodes), 1) << "the default stays in effect";
  EXPECT_EQ(cfg.rawText(Knob::VirtualNodes), "two");
  EXPECT_NE(cfg.error(Knob::VirtualNodes).find("expected an integer"), std::string::npos);
  EXPECT_EQ(cfg.warnings().size(), 1u);
  EXPECT_TRUE(Config::parse(std::vector<std::string>{"FERRY_CHUNK_SIZE=2M"}).status().isOk());
}

// Keywords read as every other value syntax does: blanks around them dropped, any case.
TEST(Config, KeywordsIgnoreCaseAndBlanks) {
  auto cfg = load({"FERRY_SHM= CMA ", "FERRY_GPUS_PER_RANK=All", "FERRY_COLL=OFF"});
  ASSERT_TRUE(cfg.isOk()) << cfg.status().message();
  EXPECT_EQ(cfg->text(Knob::Shm), "cma");
  EXPECT_EQ(cfg->integer(Knob::GpusPerRank), -1);
  EXPECT_EQ(cfg->rawText(Knob::Shm), " CMA ") << "shown as given";
}

// A setting in another case is not taken, but said to be ignored.
TEST(Config, WarnsAboutASettingInLowerCase) {
  auto cfg = load({"ferry_timeout=5s"});
  ASSERT_TRUE(cfg.isOk());
  ASSERT_EQ(cfg->warnings().size(), 1u);
  EXPECT_EQ(cfg->warnings()[0], "ferry_timeout is ignored: settings are upper case (FERRY_TIMEOUT)");
  EXPECT_DOUBLE_EQ(cfg->seconds(Knob::Timeout), 30.0);
}

TEST(Config, WarnsAboutUnknownNamesWithASuggestion) {
  auto cfg = load({"FERRY_TIMOUT=5s", "FERRY_COMPLETELY_UNKNOWN=1", "FERRY_CHUNKSIZE=1M", "FERRY_BOGUS=1"});
  ASSERT_TRUE(cfg.isOk());
  ASSERT_EQ(cfg->warnings().size(), 4u);
  EXPECT_NE(cfg->warnings()[0].find("did you mean FERRY_TIMEOUT"), std::string::npos) << cfg->warnings()[0];
  EXPECT_EQ(cfg->warnings()[1].find("did you mean"), std::string::npos) << cfg->warnings()[1];
  EXPECT_NE(cfg->warnings()[2].find("did you mean FERRY_CHUNK_SIZE"), std::string::npos) << cfg->warnings()[2];
  // A short name is no near miss of every other short name.
  EXPECT_EQ(cfg->warnings()[3].find("did you mean"), std::string::npos) << cfg->warnings()[3];
  EXPECT_DOUBLE_EQ(cfg->seconds(Knob::Timeout), 30.0);  // the misspelt one had no effect
}

}  // namespace
}  // namespace ferry
