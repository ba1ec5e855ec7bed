import Foundation
import Hummingbird

/// The API's responses: JSON bodies, never cached (the numbers are live).
enum HTTPResponses {
    /// `value` as JSON with `status`.
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: APIEncoding.json(value))))
    }

    /// An error with its code and sentence (see ``APIError``).
    static func error(_ status: HTTPResponse.Status, _ code: String, _ message: String) -> Response {
        json(APIError(error: code, message: message), status: status)
    }

    /// `GET /api/stream`: server-sent events from `stream`, after a `retry` hint (the browser
    /// reconnects 2 s after the stream ends) and a first comment that gets the headers out.
    static func eventStream(_ stream: AsyncStream<String>) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "retry: 2000\n: connected\n\n"))
                for await message in stream { try await writer.write(ByteBuffer(string: message)) }
                try await writer.finish(nil)
            })
    }
}
