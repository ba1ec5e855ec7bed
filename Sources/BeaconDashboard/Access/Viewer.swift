/// Who is looking: the identity a request carries once logged in (hummingbird-auth's `identity`).
struct Viewer: Sendable, Equatable {
    /// How the viewer got in.
    enum Login: Sendable, Equatable {
        /// A user of the users file, by name.
        case user(String)
        /// No login: the dashboard runs with `--no-login`, on the loopback only.
        case none
    }

    let login: Login
    /// The stores the viewer may see.
    let scope: StoreScope

    /// The user's name; nil without a login.
    var user: String? {
        switch login {
        case .user(let name): name
        case .none: nil
        }
    }
}

extension Viewer {
    /// Who is looking, as the page's header shows it.
    var view: StoresView.ViewerView { StoresView.ViewerView(user: user, stores: scope.description) }
}
