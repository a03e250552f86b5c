// libptort: the runtime as a library. One include for embedders and tests:
// the reference interpreter (interp.h), .npy I/O (npy.h) and the block
// launcher (launch.h). A typical use:
//
//   ptoas::SourceFile src("k.pto", text);
//   ptoas::Diag diag(&src);
//   ptoas::Module m;
//   if (!ptoas::run_frontend(src, {}, m, diag)) ...;
//   ptoas::rt::Interpreter interp(m);
//   std::string err;
//   ptoas::rt::LaunchRequest req;
//   req.module = &m;
//   req.fn = interp.find_function("", err);
//   ptoas::rt::NpyArray a, c;
//   ptoas::rt::npy_read("a.npy", a, err);
//   req.args = {ptoas::rt::KernelArg::buffer("a", a), ptoas::rt::KernelArg::output("c", c),
//               ptoas::rt::KernelArg::scalar("n", "1024")};
//   req.blocks = 16;
//   if (!ptoas::rt::launch(req, err)) ...;   // err: one message per line
//   ptoas::rt::npy_write("c.npy", c, err);
#pragma once

#include "diag.h"
#include "frontend.h"
#include "interp.h"
#include "ir.h"
#include "launch.h"
#include "npy.h"
