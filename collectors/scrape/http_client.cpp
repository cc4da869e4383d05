#include "scrape/http_client.h"

#include <curl/curl.h>

#include <memory>
#include <mutex>
#include <utility>

#include "common/fd_task.h"

namespace plegscope {
namespace {

struct Sink {
  std::string* body;
  size_t cap;
  bool overflowed = false;
};

size_t write_body(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  size_t n = size * count;
  if (sink->body->size() + n > sink->cap) {
    sink->overflowed = true;
    return 0;  // libcurl aborts the transfer with CURLE_WRITE_ERROR
  }
  sink->body->append(data, n);
  return n;
}

HttpError classify(CURLcode code) {
  switch (code) {
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
      return HttpError::bad_url;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return HttpError::resolve_failed;
    case CURLE_COULDNT_CONNECT:
      return HttpError::connect_refused;
    case CURLE_OPERATION_TIMEDOUT:
      return HttpError::timeout;
    case CURLE_PEER_FAILED_VERIFICATION:
      return HttpError::tls_verify_failed;
    case CURLE_SSL_CACERT_BADFILE:
      return HttpError::ca_file_unusable;
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_ENGINE_INITFAILED:
      return HttpError::client_cert_unusable;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CIPHER:
    case CURLE_USE_SSL_FAILED:
      return HttpError::tls_failed;
    case CURLE_FILESIZE_EXCEEDED:
      return HttpError::too_large;
    default:
      return HttpError::transfer_failed;
  }
}

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
struct MultiDeleter {
  void operator()(CURLM* m) const { curl_multi_cleanup(m); }
};

// The transfer of `h`, as curl_easy_perform would do it, on a thread that
// serves `task` meanwhile: one curl_multi_poll waits on the transfer's
// sockets and the task's descriptor. The transfer's own timeouts still
// bound it; the task runs between its steps. The multi handle is the
// thread's own and outlives the transfer, so its connection cache keeps
// the open connections as the easy handle's would.
CURLcode perform_serving(CURL* h, FdTask& task) {
  thread_local std::unique_ptr<CURLM, MultiDeleter> multi;
  if (!multi) multi.reset(curl_multi_init());
  if (!multi || curl_multi_add_handle(multi.get(), h) != CURLM_OK) return curl_easy_perform(h);
  // The longest curl_multi_poll may wait before libcurl's own timers (the
  // transfer's timeouts) are looked at again: libcurl caps it further.
  constexpr std::chrono::milliseconds kLongestWait{1000};
  CURLcode code = CURLE_OK;
  bool done = false;
  while (!done) {
    int running = 0;
    CURLMcode mc = curl_multi_perform(multi.get(), &running);
    if (mc != CURLM_OK) {
      code = CURLE_RECV_ERROR;
      break;
    }
    int queued = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi.get(), &queued)) {
      if (msg->msg == CURLMSG_DONE && msg->easy_handle == h) {
        code = msg->data.result;
        done = true;
      }
    }
    if (done || running == 0) break;
    curl_waitfd extra{task.fd(), CURL_WAIT_POLLIN, 0};
    mc = curl_multi_poll(multi.get(), extra.fd >= 0 ? &extra : nullptr, extra.fd >= 0 ? 1 : 0,
                         task_wait_ms(task, kLongestWait), nullptr);
    if (mc != CURLM_OK) {
      code = CURLE_RECV_ERROR;
      break;
    }
    pollfd ready{extra.fd, POLLIN, short(extra.revents)};
    serve_task_if_ready(task, &ready);
  }
  curl_multi_remove_handle(multi.get(), h);
  return code;
}

// The server's verification and the client's credentials.
void set_credentials(CURL* h, const HttpRequestOptions& options) {
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, options.insecure_skip_verify ? 0L : 1L);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, options.insecure_skip_verify ? 0L : 2L);
  if (!options.ca_file.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, options.ca_file.c_str());
  if (!options.client_cert_file.empty()) {
    curl_easy_setopt(h, CURLOPT_SSLCERT, options.client_cert_file.c_str());
    curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
    // Without SSLKEY libcurl reads the key from the certificate file.
    if (!options.client_key_file.empty()) {
      curl_easy_setopt(h, CURLOPT_SSLKEY, options.client_key_file.c_str());
    }
  }
  if (!options.basic_auth_user.empty()) {
    curl_easy_setopt(h, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl_easy_setopt(h, CURLOPT_USERNAME, options.basic_auth_user.c_str());
    curl_easy_setopt(h, CURLOPT_PASSWORD, options.basic_auth_password.c_str());
  }
}

}  // namespace

const char* http_error_name(HttpError error) {
  switch (error) {
    case HttpError::none: return "none";
    case HttpError::bad_url: return "bad_url";
    case HttpError::resolve_failed: return "resolve_failed";
    case HttpError::connect_refused: return "connect_refused";
    case HttpError::timeout: return "timeout";
    case HttpError::tls_verify_failed: return "tls_verify_failed";
    case HttpError::tls_failed: return "tls_failed";
    case HttpError::ca_file_unusable: return "ca_file_unusable";
    case HttpError::client_cert_unusable: return "client_cert_unusable";
    case HttpError::too_large: return "too_large";
    case HttpError::transfer_failed: return "transfer_failed";
  }
  return "unknown";
}

HttpResult http_get(const std::string& url, const HttpRequestOptions& options, std::string body_storage) {
  return http_send("GET", url, "", options, std::move(body_storage));
}

HttpResult http_send(const std::string& method, const std::string& url, const std::string& body,
                     const HttpRequestOptions& options, std::string body_storage) {
  // curl_global_init is not thread-safe on every libcurl build; once is enough.
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });

  HttpResult result;
  result.body = std::move(body_storage);
  result.body.clear();
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
    result.error = HttpError::bad_url;
    result.error_detail = "URL must start with http:// or https://";
    return result;
  }
  // One handle per thread, reset between requests: reset keeps its open
  // connections and TLS sessions, so a reader that scrapes the same server
  // every few seconds skips the TCP and TLS handshakes (libcurl reuses a
  // connection only for the same host, port and TLS settings).
  thread_local std::unique_ptr<CURL, CurlDeleter> handle;
  if (handle) {
    curl_easy_reset(handle.get());
  } else {
    handle.reset(curl_easy_init());
  }
  if (!handle) {
    result.error = HttpError::transfer_failed;
    result.error_detail = "curl_easy_init failed";
    return result;
  }
  CURL* h = handle.get();
  char error_buffer[CURL_ERROR_SIZE] = {0};
  Sink sink{&result.body, options.max_body_bytes};

  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  if (method != "GET") {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method.c_str());
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  }
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer);
  // Worker threads: no SIGALRM-based resolver timeouts.
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
#if LIBCURL_VERSION_NUM >= 0x075500
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
  curl_easy_setopt(h, CURLOPT_PROTOCOLS, CURLPROTO_HTTP | CURLPROTO_HTTPS);
#endif
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  if (!options.unix_socket_path.empty()) curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, options.unix_socket_path.c_str());
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout.count()));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(options.total_timeout.count()));
  // A Content-Length past the cap is refused before any body is read.
  curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(options.max_body_bytes));
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
  if (!options.use_environment_proxy) curl_easy_setopt(h, CURLOPT_PROXY, "");
  set_credentials(h, options);
  std::unique_ptr<curl_slist, SlistDeleter> headers;
  auto add_header = [&headers](const std::string& line) {
    curl_slist* next = curl_slist_append(headers.get(), line.c_str());
    if (next) {
      headers.release();
      headers.reset(next);
    }
  };
  if (!options.bearer_token.empty()) add_header("Authorization: Bearer " + options.bearer_token);
  for (const auto& line : options.headers) add_header(line);
  if (headers) curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());

  FdTask* task = options.serve_while_waiting;
  CURLcode code = task ? perform_serving(h, *task) : curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &result.status);
  if (code == CURLE_OK) return result;
  result.error = sink.overflowed ? HttpError::too_large : classify(code);
  result.error_detail = error_buffer[0] ? error_buffer : curl_easy_strerror(code);
  if (result.error == HttpError::too_large) {
    result.error_detail += " (cap " + std::to_string(options.max_body_bytes) + " bytes)";
  }
  return result;
}

}  // namespace plegscope
