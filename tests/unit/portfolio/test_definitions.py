"""Definition extraction with the real tree-sitter grammars (no mocks)."""

from __future__ import annotations

import os
import random

import pytest

from solograph.portfolio.definitions import (
    LANGUAGES,
    Definition,
    DefinitionExtractor,
    ParseResult,
    language_for_path,
)


@pytest.fixture(scope="module")
def extractor() -> DefinitionExtractor:
    return DefinitionExtractor()


def _tuples(result: ParseResult) -> set[tuple[str, str, int, str]]:
    return {(d.name, d.kind, d.line, d.scope) for d in result.definitions}


# language -> (source, exact set of (name, kind, line, scope))
CASES: dict[str, tuple[str, set[tuple[str, str, int, str]]]] = {
    "python": (
        """\
import os


@decorator
def load_config(path):
    def _parse(text):
        return text
    return _parse(path)


class AuthMiddleware(Base):
    class Settings:
        async def fetchToken(self):
            pass

    @property
    def is_active(self):
        return True
""",
        {
            ("load_config", "function", 5, ""),
            ("_parse", "function", 6, "load_config"),
            ("AuthMiddleware", "class", 11, ""),
            ("Settings", "class", 12, "AuthMiddleware"),
            ("fetchToken", "method", 13, "AuthMiddleware.Settings"),
            ("is_active", "method", 17, "AuthMiddleware"),
        },
    ),
    "swift": (
        """\
import Foundation

struct Point {
    var x: Int
    init(x: Int) { self.x = x }
    func norm() -> Double { return 0 }
}

final class Widget: NSObject {
    enum Style { case plain }
    func drawRect() {}
}

protocol Drawable {
    func draw()
}

extension Widget: Drawable {
    func draw() {}
}

actor Counter {}
typealias Handler = (Int) -> Void
func makeWidget() -> Widget { Widget() }
""",
        {
            ("Point", "struct", 3, ""),
            ("init", "method", 5, "Point"),
            ("norm", "method", 6, "Point"),
            ("Widget", "class", 9, ""),
            ("Style", "enum", 10, "Widget"),
            ("drawRect", "method", 11, "Widget"),
            ("Drawable", "protocol", 14, ""),
            ("draw", "method", 15, "Drawable"),
            ("Widget", "extension", 18, ""),
            ("draw", "method", 19, "Widget"),
            ("Counter", "class", 22, ""),
            ("Handler", "type", 23, ""),
            ("makeWidget", "function", 24, ""),
        },
    ),
    "typescript": (
        """\
export interface UserProps {
  name: string;
  render(): void;
}

export type UserId = string | number;

export enum Role { Admin, Guest }

export abstract class BaseStore {
  abstract load(): void;
}

export class UserStore extends BaseStore {
  private cache = new Map();
  constructor() { super(); }
  load(): void {}
  handleChange = () => {};
}

export function createStore(): UserStore {
  return new UserStore();
}

export const fetchUser = async (id: UserId) => id;

namespace Api {
  export function get_user() {}
}
""",
        {
            ("UserProps", "interface", 1, ""),
            ("render", "method", 3, "UserProps"),
            ("UserId", "type", 6, ""),
            ("Role", "enum", 8, ""),
            ("BaseStore", "class", 10, ""),
            ("load", "method", 11, "BaseStore"),
            ("UserStore", "class", 14, ""),
            ("constructor", "method", 16, "UserStore"),
            ("load", "method", 17, "UserStore"),
            ("handleChange", "method", 18, "UserStore"),
            ("createStore", "function", 21, ""),
            ("fetchUser", "function", 25, ""),
            ("Api", "module", 27, ""),
            ("get_user", "function", 28, "Api"),
        },
    ),
    "tsx": (
        """\
import React from "react";

interface ButtonProps {
  label: string;
}

export const Button = ({ label }: ButtonProps) => <button>{label}</button>;

export function App() {
  const renderItem = (x: number) => <li>{x}</li>;
  return <ul>{[1].map(renderItem)}</ul>;
}

class Panel extends React.Component<ButtonProps> {
  render() { return <div />; }
}
""",
        {
            ("ButtonProps", "interface", 3, ""),
            ("Button", "function", 7, ""),
            ("App", "function", 9, ""),
            ("renderItem", "function", 10, "App"),
            ("Panel", "class", 14, ""),
            ("render", "method", 15, "Panel"),
        },
    ),
    "javascript": (
        """\
const express = require("express");

class Router {
  constructor(app) { this.app = app; }
  #secret() {}
  static create() { return new Router(); }
  onError = (err) => {};
}

function startServer(port) {
  function listen() {}
  return listen;
}

const handler = async (req, res) => {};
var legacy = function () {};
export default function* idGenerator() {}
""",
        {
            ("Router", "class", 3, ""),
            ("constructor", "method", 4, "Router"),
            ("#secret", "method", 5, "Router"),
            ("create", "method", 6, "Router"),
            ("onError", "method", 7, "Router"),
            ("startServer", "function", 10, ""),
            ("listen", "function", 11, "startServer"),
            ("handler", "function", 15, ""),
            ("legacy", "function", 16, ""),
            ("idGenerator", "function", 17, ""),
        },
    ),
    "kotlin": (
        """\
package com.example.app

fun topLevel(x: Int): Int = x

class UserRepository(private val db: Db) {
    fun findById(id: Long): User? = null

    inner class Cache {
        fun evict() {}
    }

    companion object {
        fun create(): UserRepository = UserRepository(Db())
    }
}

interface Repo {
    fun find(id: Int): String
}

object Registry {
    fun register() {}
}

enum class Color {
    RED, GREEN;
    fun label() = name
}

typealias UserId = Long
""",
        {
            ("topLevel", "function", 3, ""),
            ("UserRepository", "class", 5, ""),
            ("findById", "method", 6, "UserRepository"),
            ("Cache", "class", 8, "UserRepository"),
            ("evict", "method", 9, "UserRepository.Cache"),
            ("Companion", "class", 12, "UserRepository"),
            ("create", "method", 13, "UserRepository.Companion"),
            ("Repo", "interface", 17, ""),
            ("find", "method", 18, "Repo"),
            ("Registry", "class", 21, ""),
            ("register", "method", 22, "Registry"),
            ("Color", "enum", 25, ""),
            ("label", "method", 27, "Color"),
            ("UserId", "type", 30, ""),
        },
    ),
    "rust": (
        """\
use std::fmt;

pub mod net {
    pub struct Connection {
        fd: i32,
    }

    impl Connection {
        pub fn open() -> Self {
            Connection { fd: 0 }
        }
    }
}

pub enum Color {
    Red,
}

pub trait Shape {
    fn area(&self) -> f64;
    fn describe(&self) -> String {
        String::new()
    }
}

impl fmt::Display for net::Connection {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        Ok(())
    }
}

pub type Alias = u32;

fn main() {
    fn helper() {}
}
""",
        {
            ("net", "module", 3, ""),
            ("Connection", "struct", 4, "net"),
            ("open", "method", 9, "net.Connection"),
            ("Color", "enum", 15, ""),
            ("Shape", "trait", 19, ""),
            ("area", "method", 20, "Shape"),
            ("describe", "method", 21, "Shape"),
            ("fmt", "method", 27, "Connection"),
            ("Alias", "type", 32, ""),
            ("main", "function", 34, ""),
            ("helper", "function", 35, "main"),
        },
    ),
    "go": (
        """\
package server

type Server struct {
	addr string
}

type Handler interface {
	ServeHTTP() error
}

type Port int

func (s *Server) Start() error {
	return nil
}

func (s Server) Addr() string {
	return s.addr
}

func NewServer(addr string) *Server {
	return &Server{addr: addr}
}
""",
        {
            ("Server", "struct", 3, ""),
            ("Handler", "interface", 7, ""),
            ("ServeHTTP", "method", 8, "Handler"),
            ("Port", "type", 11, ""),
            ("Start", "method", 13, "Server"),
            ("Addr", "method", 17, "Server"),
            ("NewServer", "function", 21, ""),
        },
    ),
    "java": (
        """\
package com.example;

public class OrderService {
    public OrderService() {}

    public void placeOrder(Order order) {}

    static class Validator {
        boolean isValid() { return true; }
    }

    interface Listener {
        void onOrder();
    }

    enum Status { NEW, DONE }

    record Line(int qty) {}
}
""",
        {
            ("OrderService", "class", 3, ""),
            ("OrderService", "method", 4, "OrderService"),
            ("placeOrder", "method", 6, "OrderService"),
            ("Validator", "class", 8, "OrderService"),
            ("isValid", "method", 9, "OrderService.Validator"),
            ("Listener", "interface", 12, "OrderService"),
            ("onOrder", "method", 13, "OrderService.Listener"),
            ("Status", "enum", 16, "OrderService"),
            ("Line", "class", 18, "OrderService"),
        },
    ),
    "ruby": (
        """\
module Billing
  class Invoice < Base
    def total_amount
      0
    end

    def self.build(attrs)
      new(attrs)
    end
  end

  def helper; end
end

class Billing::Report
end

def top_level?
  true
end
""",
        {
            ("Billing", "module", 1, ""),
            ("Invoice", "class", 2, "Billing"),
            ("total_amount", "method", 3, "Billing.Invoice"),
            ("build", "method", 7, "Billing.Invoice"),
            ("helper", "method", 12, "Billing"),
            ("Report", "class", 15, "Billing"),
            ("top_level?", "function", 18, ""),
        },
    ),
    "c": (
        """\
#include <stdio.h>

struct point {
    int x;
};

typedef struct node {
    struct node *next;
} node_t;

enum color { RED, GREEN };

union value { int i; float f; };

typedef int (*callback_t)(int);

static int *make_buffer(void) {
    return 0;
}

int main(int argc, char **argv) {
    return 0;
}

void prototype_only(int);
""",
        {
            ("point", "struct", 3, ""),
            ("node", "struct", 7, ""),
            ("node_t", "type", 9, ""),
            ("color", "enum", 11, ""),
            ("value", "struct", 13, ""),
            ("callback_t", "type", 15, ""),
            ("make_buffer", "function", 17, ""),
            ("main", "function", 21, ""),
        },
    ),
    "cpp": (
        """\
#include <string>

namespace gfx {

class Widget {
public:
    Widget();
    virtual void draw() const;
    int size() const { return 0; }

    struct Inner {
        int value;
    };
};

void Widget::draw() const {}

template <typename T>
T clamp(T v) { return v; }

}  // namespace gfx

enum class Mode { A, B };

using Name = std::string;
""",
        {
            ("gfx", "module", 3, ""),
            ("Widget", "class", 5, "gfx"),
            ("Widget", "method", 7, "gfx.Widget"),
            ("draw", "method", 8, "gfx.Widget"),
            ("size", "method", 9, "gfx.Widget"),
            ("Inner", "struct", 11, "gfx.Widget"),
            ("draw", "method", 16, "gfx.Widget"),
            ("clamp", "function", 19, "gfx"),
            ("Mode", "enum", 23, ""),
            ("Name", "type", 25, ""),
        },
    ),
    "php": (
        """\
<?php
namespace App\\Http;

function helper($x) {
    return $x;
}

interface Renderable {
    public function render(): string;
}

trait Loggable {
    public function log() {}
}

abstract class Controller implements Renderable {
    public function __construct() {}
    public static function make(): static { return new static(); }
}

enum Suit: string {
    case Hearts = 'H';
}
""",
        {
            ("helper", "function", 4, ""),
            ("Renderable", "interface", 8, ""),
            ("render", "method", 9, "Renderable"),
            ("Loggable", "trait", 12, ""),
            ("log", "method", 13, "Loggable"),
            ("Controller", "class", 16, ""),
            ("__construct", "method", 17, "Controller"),
            ("make", "method", 18, "Controller"),
            ("Suit", "enum", 21, ""),
        },
    ),
    "hcl": (
        """\
terraform {
  required_version = ">= 1.5"
}

provider "aws" {
  region = var.region
}

variable "region" {
  default = "eu-west-1"
}

resource "aws_s3_bucket" "logs" {
  bucket = "my-logs"
}

data "aws_iam_policy_document" "assume" {}

module "vpc" {
  source = "./modules/vpc"
}

locals {
  name = "app"
}

output "bucket_arn" {
  value = aws_s3_bucket.logs.arn
}
""",
        {
            ("provider.aws", "provider", 5, ""),
            ("var.region", "variable", 9, ""),
            ("aws_s3_bucket.logs", "resource", 13, ""),
            ("data.aws_iam_policy_document.assume", "data", 17, ""),
            ("module.vpc", "module", 19, ""),
            ("local.name", "local", 24, ""),
            ("output.bucket_arn", "output", 27, ""),
        },
    ),
    "bash": (
        """\
#!/usr/bin/env bash
set -euo pipefail

deploy_app() {
  build_image() {
    docker build .
  }
  build_image
}

function cleanup {
  rm -rf "$TMP"
}

trap cleanup EXIT
""",
        {
            ("deploy_app", "function", 4, ""),
            ("build_image", "function", 5, "deploy_app"),
            ("cleanup", "function", 11, ""),
        },
    ),
    "sql": (
        """\
CREATE TABLE users (
    id INT PRIMARY KEY,
    name TEXT
);

CREATE TABLE IF NOT EXISTS billing.invoices (id INT);

CREATE VIEW active_users AS SELECT * FROM users;

CREATE OR REPLACE FUNCTION add_one(i integer) RETURNS integer AS $$
    SELECT i + 1
$$ LANGUAGE SQL;

CREATE INDEX idx_users_name ON users (name);

CREATE TYPE mood AS ENUM ('sad', 'ok');
""",
        {
            ("users", "table", 1, ""),
            ("invoices", "table", 6, "billing"),
            ("active_users", "view", 8, ""),
            ("add_one", "function", 10, ""),
            ("idx_users_name", "index", 14, ""),
            ("mood", "type", 16, ""),
        },
    ),
}


def test_cases_cover_every_language() -> None:
    assert set(CASES) == set(LANGUAGES)
    assert len(LANGUAGES) == 16


@pytest.mark.parametrize("language", sorted(CASES))
def test_definitions_per_language(extractor: DefinitionExtractor, language: str) -> None:
    source, expected = CASES[language]
    result = extractor.extract(language, source.encode())
    assert not result.has_error
    assert _tuples(result) == expected
    assert len(result.definitions) == len(expected)  # no duplicates
    assert all(isinstance(d, Definition) for d in result.definitions)
    lines = [d.line for d in result.definitions]
    assert lines == sorted(lines)  # document order


# JavaScript/TypeScript functions assigned to object members, as Express writes its API.
# id -> (language, source, exact set of (name, kind, line, scope))
ASSIGNED_CASES: dict[str, tuple[str, str, set[tuple[str, str, int, str]]]] = {
    "express-router": (
        "javascript",
        """\
'use strict';

var proto = module.exports = function(options) {
  function router(req, res, next) {
    router.handle(req, res, next);
  }
  return router;
};

proto.handle = function handle(req, res, out) {
  var idx = 0;
  next();

  function next(err) {
    var layer = stack[idx++];
    layer.handle_request(req, res, next);
  }

  function trim_prefix(layer, layerError, layerPath, path) {}
};

proto.use = function use(fn) {
  callbacks.forEach(function (cb) {
    function onEach() {}
  });
  this.stack.push(function named_callback(req, res) {});
  setImmediate(() => {});
  return this;
};

proto.route = (path) => new Route(path);
""",
        {
            ("router", "function", 4, ""),
            ("handle", "method", 10, "proto"),
            ("next", "function", 14, "proto.handle"),
            ("trim_prefix", "function", 19, "proto.handle"),
            ("use", "method", 22, "proto"),
            ("onEach", "function", 24, "proto.use"),
            ("named_callback", "function", 26, "proto.use"),
            ("route", "method", 31, "proto"),
        },
    ),
    "prototype-methods": (
        "javascript",
        """\
function Route(path) {
  this.path = path;
  this.stack = [];
  this.dispatch_sync = function () {};
}

Route.prototype._handles_method = function _handles_method(method) {
  return Boolean(this.methods[method]);
};

Route.prototype.dispatch = function dispatch(req, res, done) {
  next();
  function next(err) {}
};

methods.forEach(function (method) {
  Route.prototype[method] = function () {};
});

View.prototype.lookup = function lookup(name) {};
express.Router.prototype.all = function all() {};
this.legacy = function () {};
""",
        {
            ("Route", "function", 1, ""),
            ("dispatch_sync", "method", 4, "Route"),
            ("_handles_method", "method", 7, "Route"),
            ("dispatch", "method", 11, "Route"),
            ("next", "function", 13, "Route.dispatch"),
            ("lookup", "method", 20, "View"),
            ("all", "method", 21, "express.Router"),
            ("legacy", "method", 22, ""),
        },
    ),
    "exports": (
        "javascript",
        """\
exports = module.exports = createApplication;

function createApplication() {
  var app = function (req, res, next) {
    app.handle(req, res, next);
  };
  app.init = function init() {};
  return app;
}

exports.compileETag = function (val) {
  return val;
};

module.exports.isAbsolute = (path) => path[0] === '/';
exports.query = function* query() {};
exports.application = proto;
exports.utils.merge = function merge(a, b) {};
""",
        {
            ("createApplication", "function", 3, ""),
            ("app", "function", 4, "createApplication"),
            ("init", "method", 7, "createApplication.app"),
            ("compileETag", "function", 11, ""),
            ("isAbsolute", "function", 15, ""),
            ("query", "function", 16, ""),
            ("merge", "method", 18, "utils"),
        },
    ),
    "module-exports-function": (
        "javascript",
        """\
module.exports = function createApplication() {
  function mixin(dest, src) {}
  return mixin;
};

module.exports = (options) => {
  function anonymousParent() {}
};

module.exports = {
  handle: function handle() {},
  render() {},
};
""",
        {
            ("createApplication", "function", 1, ""),
            ("mixin", "function", 2, "createApplication"),
            ("anonymousParent", "function", 7, ""),
            ("handle", "function", 11, ""),
            ("render", "function", 12, ""),
        },
    ),
    "chained-aliases": (
        "javascript",
        """\
req.get =
req.header = function header(name) {
  function lc(s) {}
};

res.contentType =
res.type = function contentType(type) {};

res.set = res.header = function (field, val) {};
err.status = err.statusCode = 400;
exports = module.exports = function plugin() {};
""",
        {
            ("get", "method", 1, "req"),
            ("header", "method", 2, "req"),
            ("lc", "function", 3, "req.header"),
            ("contentType", "method", 6, "res"),
            ("type", "method", 7, "res"),
            ("set", "method", 9, "res"),
            ("header", "method", 9, "res"),
            ("plugin", "function", 11, ""),
        },
    ),
    "this-in-class": (
        "javascript",
        """\
class Argument {
  choices(values) {
    this.argChoices = values.slice();
    this.parseArg = (arg, previous) => {
      function check() {}
      return arg;
    };
  }
}
""",
        {
            ("Argument", "class", 1, ""),
            ("choices", "method", 2, "Argument"),
            ("parseArg", "method", 4, "Argument"),
            ("check", "function", 5, "Argument.parseArg"),
        },
    ),
    "typescript": (
        "typescript",
        """\
interface Res {
  redirect(url: string): void;
}

export const res: Res = Object.create(http.ServerResponse.prototype);

res.redirect = function redirect(this: Res, url: string): void {
  const done = (err?: Error) => {};
  function finish(status: number) {}
};

Router.prototype.route = function (path: string): Route {
  return new Route(path);
};

export class Immer {
  constructor() {
    this.produce = (base: unknown) => base;
  }
}

exports.helper = async (): Promise<void> => {};
module.exports = function createApp(): App {
  return app;
};
app.use((req: Request, res: Response) => {});
app.get("/", async function handler(req: Request) {});
""",
        {
            ("Res", "interface", 1, ""),
            ("redirect", "method", 2, "Res"),
            ("redirect", "method", 7, "res"),
            ("done", "function", 8, "res.redirect"),
            ("finish", "function", 9, "res.redirect"),
            ("route", "method", 12, "Router"),
            ("Immer", "class", 16, ""),
            ("constructor", "method", 17, "Immer"),
            ("produce", "method", 18, "Immer"),
            ("helper", "function", 22, ""),
            ("createApp", "function", 23, ""),
            ("handler", "function", 27, ""),
        },
    ),
    "tsx": (
        "tsx",
        """\
export function App() {
  return <div />;
}

App.displayName = "App";
App.getInitialProps = async (ctx: Context) => ({ ok: true });

Button.prototype.render = function render() {
  return <button onClick={() => {}} />;
};

items.map(function renderItem(x: number) {
  return <li>{x}</li>;
});
""",
        {
            ("App", "function", 1, ""),
            ("getInitialProps", "method", 6, "App"),
            ("render", "method", 8, "Button"),
            ("renderItem", "function", 12, ""),
        },
    ),
}


@pytest.mark.parametrize("case", sorted(ASSIGNED_CASES))
def test_assigned_functions(extractor: DefinitionExtractor, case: str) -> None:
    language, source, expected = ASSIGNED_CASES[case]
    result = extractor.extract(language, source.encode())
    assert not result.has_error
    assert _tuples(result) == expected
    assert len(result.definitions) == len(expected)  # no duplicates
    lines = [d.line for d in result.definitions]
    assert lines == sorted(lines)  # document order


@pytest.mark.parametrize(
    ("language", "source", "names"),
    [
        (
            "python",
            "def load_userProfile():\n    pass\n\nclass HTTPServer_v2:\n    pass\n",
            {"load_userProfile", "HTTPServer_v2"},
        ),
        (
            "go",
            "package x\n\nfunc parseJSON_body() {}\n\ntype userID int\n",
            {"parseJSON_body", "userID"},
        ),
        (
            "ruby",
            "def valid?\nend\n\ndef reset!\nend\n\ndef name=(v)\nend\n",
            {"valid?", "reset!", "name="},
        ),
        ("rust", "fn snake_case_fn() {}\nstruct CamelCase;\n", {"snake_case_fn", "CamelCase"}),
    ],
)
def test_names_kept_as_written(
    extractor: DefinitionExtractor, language: str, source: str, names: set[str]
) -> None:
    assert {d.name for d in extractor.extract(language, source.encode()).definitions} == names


@pytest.mark.parametrize(
    ("language", "source", "must_have"),
    [
        (
            "python",
            "def valid_one():\n    pass\n\ndef broken(:\n    pass\n\n"
            "class StillHere:\n    def ok(self):\n        pass\n",
            {
                ("valid_one", "function", 1, ""),
                ("StillHere", "class", 7, ""),
                ("ok", "method", 8, "StillHere"),
            },
        ),
        (
            "go",
            "package x\n\nfunc Good() {}\n\nfunc Bad( {\n}\n\ntype Later struct{}\n",
            {("Good", "function", 3, ""), ("Later", "struct", 8, "")},
        ),
        (
            "typescript",
            "function good() {}\nclass Box {\n  method() {}\n}\nconst = = ;\n",
            {("good", "function", 1, ""), ("Box", "class", 2, ""), ("method", "method", 3, "Box")},
        ),
        (
            "rust",
            "fn good() {}\nfn bad( {\nstruct After;\n",
            {("good", "function", 1, ""), ("After", "struct", 3, "")},
        ),
        (
            "java",
            "class A {\n  void ok() {}\n  void bad( {\n}\n",
            {("A", "class", 1, ""), ("ok", "method", 2, "A")},
        ),
        (
            "c",
            "int good(void) { return 0; }\nint bad( { \nstruct after { int x; };\n",
            {("good", "function", 1, ""), ("after", "struct", 3, "")},
        ),
        (
            "bash",
            "good() { echo; }\nbad() { if then; }\nfunction after { :; }\n",
            {("good", "function", 1, ""), ("after", "function", 3, "")},
        ),
        (
            "sql",
            "CREATE TABLE good (id INT);\nCREATE TABLE bad (id INT,, ;\n",
            {("good", "table", 1, "")},
        ),
        ("kotlin", "fun good() {}\nfun bad( {\nclass After\n", {("good", "function", 1, "")}),
    ],
)
def test_syntax_error_keeps_valid_definitions(
    extractor: DefinitionExtractor, language: str, source: str, must_have: set
) -> None:
    result = extractor.extract(language, source.encode())
    assert result.has_error
    assert must_have <= _tuples(result)


def test_missing_node_sets_has_error(extractor: DefinitionExtractor) -> None:
    # The pack's Kotlin grammar wants a newline (automatic semicolon) before "}".
    result = extractor.extract("kotlin", b"interface Repo { fun find(id: Int): String }\n")
    assert result.has_error
    assert ("Repo", "interface", 1, "") in _tuples(result)


_GARBAGE = [
    b"",
    b"\n\n\n",
    b"\x00" * 64,
    b"\xff\xfe\xfd\xfc" * 16,
    random.Random(42).randbytes(4096),
    os.urandom(512),
    b"{" * 2000 + b"(" * 2000,
    "déf ünïcode() → ✓\n".encode() + b"\xc3\x28\xa0\xa1",
]


@pytest.mark.parametrize("language", LANGUAGES)
def test_garbage_and_empty_input_do_not_crash(
    extractor: DefinitionExtractor, language: str
) -> None:
    for data in _GARBAGE:
        result = extractor.extract(language, data)
        assert isinstance(result, ParseResult)
        assert all(isinstance(d.name, str) and d.line >= 1 for d in result.definitions)
    assert extractor.extract(language, b"") == ParseResult([], False)


def test_invalid_utf8_in_name_is_replaced(extractor: DefinitionExtractor) -> None:
    sql = extractor.extract("sql", b'CREATE TABLE "caf\xe9" (id INT);\n')
    assert _tuples(sql) == {("caf\ufffd", "table", 1, "")}
    hcl = extractor.extract("hcl", b'variable "reg\xffion" {}\n')
    assert _tuples(hcl) == {("var.reg\ufffdion", "variable", 1, "")}
    python = extractor.extract(
        "python", "class Café:\n    def naïve(self):\n        pass\n".encode()
    )
    assert _tuples(python) == {("Café", "class", 1, ""), ("naïve", "method", 2, "Café")}


def test_unknown_language_raises_value_error(extractor: DefinitionExtractor) -> None:
    with pytest.raises(ValueError):
        extractor.extract("cobol", b"IDENTIFICATION DIVISION.")


def test_definition_is_frozen() -> None:
    d = Definition("f", "function", 1, "")
    with pytest.raises(AttributeError):
        d.name = "g"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("app/main.py", "python"),
        ("stubs/types.pyi", "python"),
        ("Sources/App/View.swift", "swift"),
        ("src/index.ts", "typescript"),
        ("src/mod.mts", "typescript"),
        ("src/mod.cts", "typescript"),
        ("src/App.tsx", "tsx"),
        ("lib/a.js", "javascript"),
        ("lib/a.mjs", "javascript"),
        ("lib/a.cjs", "javascript"),
        ("lib/Component.jsx", "javascript"),
        ("app/Main.kt", "kotlin"),
        ("build.gradle.kts", "kotlin"),
        ("src/lib.rs", "rust"),
        ("cmd/server/main.go", "go"),
        ("src/Main.java", "java"),
        ("app/models/user.rb", "ruby"),
        ("lib/tasks/db.rake", "ruby"),
        ("Rakefile", "ruby"),
        ("project/Gemfile", "ruby"),
        ("src/main.c", "c"),
        ("include/api.h", "c"),
        ("src/a.cc", "cpp"),
        ("src/a.cpp", "cpp"),
        ("src/a.cxx", "cpp"),
        ("src/a.c++", "cpp"),
        ("include/a.hpp", "cpp"),
        ("include/a.hh", "cpp"),
        ("include/a.hxx", "cpp"),
        ("public/index.php", "php"),
        ("infra/main.tf", "hcl"),
        ("config.hcl", "hcl"),
        ("prod.tfvars", "hcl"),
        ("scripts/run.sh", "bash"),
        ("scripts/run.bash", "bash"),
        ("dot/.config.zsh", "bash"),
        ("migrations/001_init.sql", "sql"),
        ("SRC/MAIN.PY", "python"),
        ("Lib/Thing.TSX", "tsx"),
        ("C:\\code\\Widget.CPP", "cpp"),
        ("README.md", None),
        ("Makefile", None),
        ("archive.tar.gz", None),
        (".bashrc", None),
        ("noext", None),
        ("", None),
        ("dir.py/file", None),
    ],
)
def test_language_for_path(path: str, language: str | None) -> None:
    assert language_for_path(path) == language
    if language is not None:
        assert language in LANGUAGES
