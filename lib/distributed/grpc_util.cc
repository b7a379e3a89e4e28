#include "lib/distributed/grpc_util.h"

#include <absl/synchronization/mutex.h>
#include <grpc/support/log.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "lib/base/file.h"
#include "lib/base/strings.h"

namespace dfg {

grpc::Status ToGrpcStatus(const Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return Status::Ok();
  int code = static_cast<int>(status.error_code());
  if (code <= 0 || code > static_cast<int>(Code::kDataLoss)) code = 2;
  return Status(static_cast<Code>(code), status.error_message());
}

namespace {

// gRPC's own log lines ("E1127 ... chttp2_server.cc:1234] ... Address already
// in use") repeat, in gRPC's words, a failure dfg reports in its own; only
// the line gRPC writes before it aborts (GPR_ASSERT) is kept.
void QuietGrpcLog(gpr_log_func_args* args) {
  if (args->severity == GPR_LOG_SEVERITY_ERROR &&
      std::strncmp(args->message, "assertion failed", 16) == 0) {
    std::fprintf(stderr, "gRPC: %s:%d: %s\n", args->file, args->line,
                 args->message);
  }
}

}  // namespace

void PrepareGrpcRuntime() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Who asks for gRPC's logs (GRPC_VERBOSITY, GRPC_TRACE) gets them as
    // gRPC writes them.
    if (std::getenv("GRPC_VERBOSITY") == nullptr &&
        std::getenv("GRPC_TRACE") == nullptr) {
      gpr_set_log_function(QuietGrpcLog);
    }
    // Debian's abseil checks every absl::Mutex acquisition against a global
    // lock graph (deadlock detection, meant for debug builds); gRPC takes
    // dozens of them per call.
    absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  });
}

StatusOr<std::shared_ptr<grpc::Channel>> NewChannel(const std::string& address,
                                                    const TlsOptions& tls) {
  PrepareGrpcRuntime();
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(INT_MAX);
  args.SetMaxSendMessageSize(INT_MAX);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  // Reconnect quickly after a peer restarts (gRPC's default backoff starts
  // at 1 s and grows to 120 s).
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  // Each channel gets its own connection (no sharing between stubs).
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, kFlowControlWindow);
  args.SetInt(GRPC_ARG_HTTP2_MAX_FRAME_SIZE, kMaxFrameSize);
  // Per-call work nobody uses: channelz's call accounting, and the retry
  // filter's copies of every call's ops (dfg retries nothing; a step's
  // failure is the caller's, as in TensorFlow).
  args.SetInt(GRPC_ARG_ENABLE_CHANNELZ, 0);
  args.SetInt(GRPC_ARG_ENABLE_RETRIES, 0);
  std::shared_ptr<grpc::ChannelCredentials> creds;
  if (tls.cert_file.empty() != tls.key_file.empty()) {
    return InvalidArgument(
        "a TLS client certificate needs both --tls-cert "
        "and --tls-key");
  }
  if (!tls.cert_file.empty() && tls.ca_file.empty()) {
    return InvalidArgument(
        "a TLS client certificate needs --tls-ca (the CA "
        "that signed the server's certificate)");
  }
  if (!tls.ca_file.empty()) {
    grpc::SslCredentialsOptions ssl;
    DFG_ASSIGN_OR_RETURN(ssl.pem_root_certs, ReadFileToString(tls.ca_file));
    if (!tls.cert_file.empty()) {
      DFG_ASSIGN_OR_RETURN(ssl.pem_cert_chain, ReadFileToString(tls.cert_file));
      DFG_ASSIGN_OR_RETURN(ssl.pem_private_key, ReadFileToString(tls.key_file));
    }
    creds = grpc::SslCredentials(ssl);
  } else {
    creds = grpc::InsecureChannelCredentials();
  }
  return grpc::CreateCustomChannel(address, creds, args);
}

StatusOr<std::shared_ptr<grpc::ServerCredentials>> NewServerCredentials(
    const TlsOptions& tls) {
  if (tls.cert_file.empty() && tls.key_file.empty()) {
    if (!tls.client_ca_file.empty()) {
      return InvalidArgument(
          "--tls-client-ca needs TLS: give --tls-cert and --tls-key too");
    }
    return grpc::InsecureServerCredentials();
  }
  if (tls.cert_file.empty() || tls.key_file.empty()) {
    return InvalidArgument("TLS needs both --tls-cert and --tls-key");
  }
  grpc::SslServerCredentialsOptions ssl;
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  DFG_ASSIGN_OR_RETURN(pair.private_key, ReadFileToString(tls.key_file));
  DFG_ASSIGN_OR_RETURN(pair.cert_chain, ReadFileToString(tls.cert_file));
  ssl.pem_key_cert_pairs.push_back(pair);
  if (!tls.client_ca_file.empty()) {
    // Mutual TLS: the handshake itself refuses a client without a
    // certificate this CA signed, before any call reaches the services.
    DFG_ASSIGN_OR_RETURN(ssl.pem_root_certs,
                         ReadFileToString(tls.client_ca_file));
    ssl.client_certificate_request =
        GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(ssl);
}

StatusOr<std::string> ParseGrpcTarget(const std::string& target) {
  if (StartsWith(target, "grpc://")) {
    std::string rest = target.substr(7);
    if (rest.empty() || rest.find(':') == std::string::npos) {
      return InvalidArgument("--master '{}' is not grpc://HOST:PORT", target);
    }
    return rest;
  }
  // A bare HOST:PORT is what users type most (TensorFlow refuses it too,
  // with no hint): say what to write instead.
  const size_t colon = target.rfind(':');
  if (target.find("://") == std::string::npos && colon != std::string::npos &&
      colon > 0 && colon + 1 < target.size()) {
    return InvalidArgument(
        "--master '{}' is not a grpc://HOST:PORT target (the only protocol "
        "dfg speaks); did you mean --master grpc://{}?",
        target, target);
  }
  return InvalidArgument(
      "--master '{}' is not a grpc://HOST:PORT target (the only protocol dfg "
      "speaks)",
      target);
}

}  // namespace dfg
