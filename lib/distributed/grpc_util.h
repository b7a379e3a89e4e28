// What gRPC and dfg share: status codes both ways, channels with
// TensorFlow's message limits (2 GiB - 1 instead of gRPC's 4 MB), keepalive,
// and optional TLS credentials.
#ifndef DFG_LIB_DISTRIBUTED_GRPC_UTIL_H_
#define DFG_LIB_DISTRIBUTED_GRPC_UTIL_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "lib/base/status.h"

namespace dfg {

// HTTP/2 flow-control window and frame size on both ends: big tensors move
// in large frames without waiting for window updates on every 64 KB.
inline constexpr int kFlowControlWindow = 64 << 20;
inline constexpr int kMaxFrameSize = (16 << 20) - 1;

// gRPC and TensorFlow share the canonical codes.
grpc::Status ToGrpcStatus(const Status& status);
Status FromGrpcStatus(const grpc::Status& status);

// Process-wide gRPC settings (once): turns off abseil's per-lock deadlock
// detection, and gRPC's own log lines unless GRPC_VERBOSITY or GRPC_TRACE
// is set (dfg reports the failures in its messages). NewChannel and the
// server call it.
void PrepareGrpcRuntime();

// TLS material: PEM file paths. Empty: plaintext.
struct TlsOptions {
  // This end's certificate chain and private key: what a server presents,
  // and what a client presents to a server that asks for a client
  // certificate (mutual TLS).
  std::string cert_file;
  std::string key_file;
  std::string ca_file;  // client: the CA that signed the server's cert
  // Server: require a client certificate signed by this CA (mutual TLS,
  // the only authentication dfg server has).
  std::string client_ca_file;
};

// A channel to "host:port" (plaintext unless tls.ca_file is set; with
// cert_file and key_file too, it presents that client certificate), with
// unlimited message sizes and keepalive pings so a dead peer is noticed.
// Errors: an unreadable PEM file, a cert without a key or the reverse.
StatusOr<std::shared_ptr<grpc::Channel>> NewChannel(const std::string& address,
                                                    const TlsOptions& tls);

// Server credentials: SslServerCredentials when cert and key are given;
// with client_ca_file, clients must present a certificate that CA signed
// (the handshake fails otherwise). Errors: unreadable PEM files, a cert
// without a key or the reverse, a client CA without a server cert.
StatusOr<std::shared_ptr<grpc::ServerCredentials>> NewServerCredentials(
    const TlsOptions& tls);

// Strips "grpc://" from a target ("grpc://host:port" → "host:port").
// Error (kInvalidArgument): another scheme.
StatusOr<std::string> ParseGrpcTarget(const std::string& target);

}  // namespace dfg

#endif  // DFG_LIB_DISTRIBUTED_GRPC_UTIL_H_
