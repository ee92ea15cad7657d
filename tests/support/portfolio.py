"""A fixture portfolio: several small git checkouts covering every language and manifest kind."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

SOURCES: dict[str, dict[str, str]] = {
    "web-app": {
        "src/auth/middleware.ts": (
            "export class AuthMiddleware {\n  handle(req: Request) { return req; }\n}\n"
            "export function parseHTTPResponse2(body: string) { return body; }\n"
            "export interface SessionStore { get(id: string): string }\n"
            "export type UserId = string;\n"
        ),
        "src/components/LoginForm.tsx": (
            "export function LoginForm() { return <form></form>; }\n"
            "const useAuthState = () => null;\n"
        ),
        "lib/escape.js": "function escapeHtml(s) { return s; }\nclass Renderer {}\n",
        "node_modules/left-pad/index.js": "function leftPad() {}\n",
        "dist/bundle.js": "function bundled() {}\n",
        "package.json": (
            '{"name": "web-app", "dependencies": {"react": "^18.2.0", "next": "14.1.0"},'
            ' "devDependencies": {"typescript": "^5.4.0"}}\n'
        ),
        ".gitignore": "generated/\n",
        "generated/api.ts": "export function generatedClient() {}\n",
    },
    "py-service": {
        "app/auth_middleware.py": (
            "class AuthMiddleware:\n    def dispatch(self, request):\n        return request\n\n\n"
            "def auth_middleware(app):\n    return app\n\n\ndef escape(text):\n    return text\n"
        ),
        "app/broken.py": "def good_function():\n    return 1\n\ndef broken(:\n    pass\n",
        "app/blob.py": "\0\0\0binary\0" * 10,
        "app/huge.py": "x = 1\n" * 250_000,
        "scripts/deploy.sh": "deploy_release() {\n  echo ok\n}\n",
        "db/schema.sql": "CREATE TABLE user_accounts (id INTEGER PRIMARY KEY);\n",
        "infra/main.tf": 'resource "aws_s3_bucket" "logs" {\n  bucket = "logs"\n}\n',
        "pyproject.toml": (
            '[project]\nname = "py-service"\ndependencies = ["fastapi>=0.110", "celery[redis]"]\n'
            '[project.optional-dependencies]\ndev = ["pytest>=8"]\n'
        ),
        "requirements-dev.txt": "ruff==0.6.0\n# a comment\n",
    },
    "native-tools": {
        "Sources/App/Recorder.swift": (
            "struct MontageProfile {\n  func render() {}\n}\n"
            "protocol Recording { func start() }\n"
        ),
        "android/src/Main.kt": "class MainActivity {\n  fun onCreate() {}\n}\n",
        "core/src/lib.rs": (
            "pub struct TokenBucket { n: u32 }\n"
            "impl TokenBucket {\n  pub fn refill(&mut self) {}\n}\n"
            "pub trait RateLimiter {}\n"
        ),
        "cmd/server/main.go": (
            "package main\n\ntype HttpServer struct{}\n\nfunc (s *HttpServer) ListenAndServe() {}\n"
            "\nfunc main() {}\n"
        ),
        "java/src/Billing.java": (
            "public class BillingService {\n  public void chargeCard() {}\n}\n"
        ),
        "ruby/lib/invoice.rb": "module Billing\n  class Invoice\n    def total_amount\n    end\n"
                               "  end\nend\n",
        "c/src/ring.c": "struct ring_buffer { int n; };\nint ring_push(int x) { return x; }\n",
        "cpp/src/widget.cpp": "class Widget {\n public:\n  void draw();\n};\n"
                              "void Widget::draw() {}\n",
        "php/src/Cart.php": "<?php\nclass ShoppingCart {\n  public function addItem() {}\n}\n",
        "Package.swift": (
            'let package = Package(name: "App", dependencies: [\n'
            '  .package(url: "https://github.com/apple/swift-argument-parser.git", '
            'from: "1.2.0"),\n])\n'
        ),
        "android/build.gradle.kts": (
            'dependencies {\n  implementation("com.squareup.retrofit2:retrofit:2.9.0")\n'
            '  testImplementation("junit:junit:4.13.2")\n}\n'
        ),
        "core/Cargo.toml": (
            '[package]\nname = "core"\n[dependencies]\nserde = "1.0"\n'
            'tokio = { version = "1", features = ["full"] }\n'
        ),
    },
}

NESTED = {"native-tools/vendor-lib": {"src/vendored.py": "def nested_repo_function():\n    pass\n"}}


def git_init(path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True)


def write_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def make_portfolio(base: Path) -> Path:
    """`base/projects` with three checkouts (one holding a nested checkout) and a plain folder."""
    root = base / "projects"
    for name, files in SOURCES.items():
        git_init(root / name)
        write_tree(root / name, files)
    for rel, files in NESTED.items():
        # Under an ignored-nowhere folder name so both the walk and git see it as nested.
        git_init(root / rel)
        write_tree(root / rel, files)
    write_tree(root / "not-a-repo", {"main.py": "def not_indexed():\n    pass\n"})
    return root


def stored_definitions(db: Path) -> bytes:
    """Everything a scan stored, without row ids or times, as JSON: equal bytes mean two scans
    indexed the same files, definitions, manifests and packages, in whatever order they ran."""
    import json
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        files = conn.execute(
            "SELECT p.name, f.path, f.language, f.lines, f.size, f.mtime_ns, f.status, "
            "(SELECT json_group_array(json_array(s.name, s.kind, s.line, s.scope, s.name_key, "
            "s.words, s.scope_words)) FROM (SELECT * FROM symbols WHERE file_id = f.id "
            "ORDER BY id) s) FROM files f JOIN projects p ON p.id = f.project_id "
            "ORDER BY p.name, f.path").fetchall()
        manifests = conn.execute(
            "SELECT p.name, m.path, m.manager, m.size, m.mtime_ns, m.error, "
            "(SELECT json_group_array(json_array(k.manager, k.name, k.spec, k.dev)) FROM "
            "(SELECT * FROM packages WHERE manifest_id = m.id ORDER BY id) k) "
            "FROM manifests m JOIN projects p ON p.id = m.project_id "
            "ORDER BY p.name, m.path").fetchall()
    finally:
        conn.close()
    return json.dumps({"files": files, "manifests": manifests}, ensure_ascii=False).encode()


def store_before(db: Path, migration: str) -> sqlite3.Connection:
    """A portfolio store as a version before `migration` (a name prefix, "0005") left it:
    the earlier migrations applied and recorded, the later ones not; in autocommit."""
    from solograph.store import migration_files

    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
    for name, sql in migration_files("portfolio"):
        if name < migration:
            conn.executescript(sql)
            conn.execute("INSERT INTO _migrations VALUES (?, 0)", (name,))
    return conn
