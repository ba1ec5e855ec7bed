import Hummingbird
import ServiceLifecycle

/// `GET /api/stream`: server-sent events from one of the broadcaster's streams, after a `retry`
/// hint (the browser reconnects 2 s after the stream ends) and a first comment that gets the
/// headers out. The stream ends when the page goes away, falls behind, or the server shuts
/// down gracefully (so that the server, which waits for open responses, can stop).
struct EventStream: ResponseGenerator {
    /// The messages, each a complete event (`event: NAME\ndata: JSON\n\n`) or a comment.
    let messages: AsyncStream<String>

    func response(from request: Request, context: some RequestContext) -> Response {
        let messages = self.messages
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "retry: 2000\n: connected\n\n"))
                for await message in messages.cancelOnGracefulShutdown() {
                    try await writer.write(ByteBuffer(string: message))
                }
                try await writer.finish(nil)
            })
    }
}
