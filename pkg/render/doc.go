// Package render runs the Kptfile pipelines of a kpt package tree as `kpt
// fn render` does: a package tree (kptpkg.Files) goes in, the rendered files
// and kpt's function results come out, or the step that failed and why.
// Which runner runs each pipeline entry is the caller's Runtime: kptkit's
// own functions run in process on the parsed items (Functions, InProcess);
// runners that start processes or link other functions live at the edges.
package render
